// The planner's generated protobuf schemas (src/gen, TypeScript) for the
// end-to-end test, bundled on the fly with esbuild (a dev dependency) so the
// test can read and rewrite the API's binary answers. Not a test file: node's
// runner picks only *.test.mjs here.
import * as esbuild from "esbuild";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = await esbuild.build({
  stdin: {
    contents: `export { create, fromBinary, toBinary } from "@bufbuild/protobuf";
export { GetStageResponseSchema, GetTripResponseSchema, ListStagesResponseSchema } from "./src/gen/roadbook/v1/trip_service_pb";
export * from "./src/gen/roadbook/v1/stage_pb";`,
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "node",
  write: false,
  logLevel: "warning",
});

/** The bundle: create/fromBinary/toBinary, GetStageResponseSchema, GetTripResponseSchema, ListStagesResponseSchema and everything in stage_pb. */
export const pb = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`);

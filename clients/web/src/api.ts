// The Connect-Web clients of every service the planner calls, with the
// bearer token added to each request, and the one translation of API
// errors into what the page shows.
import { createClient, ConnectError, Code, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { TripService } from "./gen/roadbook/v1/trip_service_pb";
import { StageEditService } from "./gen/roadbook/v1/stage_edit_pb";
import { AccommodationService } from "./gen/roadbook/v1/accommodation_service_pb";
import { ShareService } from "./gen/roadbook/v1/share_service_pb";
import { ExportService } from "./gen/roadbook/v1/export_pb";
import { GeocodingService } from "./gen/roadbook/v1/geocoding_pb";
import { WatchService } from "./gen/roadbook/v1/watch_pb";
import { ErrorInfoSchema, Code as RoadbookCode, type ErrorInfo } from "./gen/roadbook/v1/error_pb";

export interface Api {
  trips: Client<typeof TripService>;
  edits: Client<typeof StageEditService>;
  nights: Client<typeof AccommodationService>;
  shares: Client<typeof ShareService>;
  exports: Client<typeof ExportService>;
  places: Client<typeof GeocodingService>;
  watch: Client<typeof WatchService>;
}

export function createApi(baseUrl: string, token: () => string, onUnauthenticated: () => void): Api {
  const auth: Interceptor = (next) => async (req) => {
    const t = token();
    if (t) req.header.set("Authorization", `Bearer ${t}`);
    try {
      return await next(req);
    } catch (e) {
      if (ConnectError.from(e).code === Code.Unauthenticated) onUnauthenticated();
      throw e;
    }
  };
  const transport = createConnectTransport({ baseUrl, interceptors: [auth], useBinaryFormat: true });
  return {
    trips: createClient(TripService, transport),
    edits: createClient(StageEditService, transport),
    nights: createClient(AccommodationService, transport),
    shares: createClient(ShareService, transport),
    exports: createClient(ExportService, transport),
    places: createClient(GeocodingService, transport),
    watch: createClient(WatchService, transport),
  };
}

// ApiFailure is an error as the page handles it: the Roadbook code (the
// same names the MCP tools use), the message and, for version conflicts,
// the trip's current version.
export interface ApiFailure {
  code: string;
  message: string;
  currentVersion?: bigint;
  info?: ErrorInfo;
}

export function failure(e: unknown): ApiFailure {
  if (e instanceof DOMException && e.name === "AbortError") return { code: "aborted", message: "" };
  const err = ConnectError.from(e);
  const info = err.findDetails(ErrorInfoSchema)[0];
  const code = info && info.code !== RoadbookCode.UNSPECIFIED ? RoadbookCode[info.code].toLowerCase() : Code[err.code].toLowerCase();
  return { code, message: err.rawMessage, currentVersion: info?.currentVersion, info };
}

export function isVersionConflict(f: ApiFailure): boolean {
  return f.code === "version_conflict";
}

// idem is a fresh idempotency key for one user action (retries of the same
// action reuse it).
export function idem(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

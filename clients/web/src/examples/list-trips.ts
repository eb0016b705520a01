// A minimal browser frontend of the Roadbook API: it lists the signed-in
// user's trips with Connect-Web, from whatever origin serves the page (the
// API must allow that origin: apiserver.Config.CORS). The page passes the API
// address and the bearer token as data attributes on <body>:
//
//   <body data-api="https://api.example" data-token="eyJ…">
//
// and the app writes <ul id="trips"> (one <li class="trip"> per trip) or
// <p id="error"> with the Connect error code and message.
import { createClient, ConnectError } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { TripService } from "../gen/roadbook/v1/trip_service_pb";

async function main(): Promise<void> {
  const body = document.body;
  const baseUrl = body.dataset.api ?? "";
  const token = body.dataset.token ?? "";
  const transport = createConnectTransport({
    baseUrl,
    interceptors: [
      (next) => async (req) => {
        req.header.set("Authorization", `Bearer ${token}`);
        return next(req);
      },
    ],
  });
  const trips = createClient(TripService, transport);
  try {
    const res = await trips.listTrips({ pageSize: 100 });
    const list = document.createElement("ul");
    list.id = "trips";
    for (const t of res.trips) {
      const item = document.createElement("li");
      item.className = "trip";
      item.dataset.tripId = t.tripId;
      item.textContent = t.title; // third-party text: never innerHTML
      list.append(item);
    }
    body.append(list);
  } catch (err) {
    const e = ConnectError.from(err);
    const p = document.createElement("p");
    p.id = "error";
    p.textContent = `${e.code}: ${e.rawMessage}`;
    body.append(p);
  }
}

void main();

// A day's weather as a rider reads it: one line ("12–21 °C · 2 mm rain ·
// headwind 8 km/h") in the day row, and the wind, comfort index, humidity
// and what the figures are (a forecast, or typical conditions for the
// place and date, which are not a forecast) under the open day.
import { ProviderAvailability, RuleFamily } from "../gen/roadbook/v1/alert_pb";
import { WeatherSource, type DayWeather, type StageDetail } from "../gen/roadbook/v1/stage_pb";
import { num, t, type Key } from "../i18n";

// weatherLine is the day's weather in one line: temperatures, rain, and
// the wind along the day's heading (head or tail) when it matters.
export function weatherLine(w: DayWeather): string {
  const parts = [t("tempRange", { min: num(w.temperatureMinC), max: num(w.temperatureMaxC) })];
  if (w.precipitationMm >= 0.5) {
    parts.push(w.precipitationProbabilityPct > 0
      ? t("rainChance", { mm: num(w.precipitationMm), p: num(w.precipitationProbabilityPct) })
      : t("rain", { mm: num(w.precipitationMm) }));
  } else {
    parts.push(t("dry"));
  }
  const hw = Math.round(w.headwindKmh);
  if (hw >= 1) parts.push(t("headwind", { v: num(hw) }));
  else if (hw <= -1) parts.push(t("tailwind", { v: num(-hw) }));
  return parts.join(" · ");
}

// Weather is the rest of the day's weather under the open day (the line
// is in the day's row above it) and what the figures are.
export function Weather({ w }: { w: DayWeather }) {
  const typical = w.source === WeatherSource.TYPICAL;
  return (
    <section class="weather" data-testid="day-weather">
      <h3 class="sub">{t("weather")}</h3>
      <p>
        {t("windMax", { v: num(w.windMaxKmh) })} · {t("comfort", { v: num(w.comfort) })}
        {w.humidityPct > 0 ? <> · {t("humidity", { v: num(w.humidityPct) })}</> : null}
      </p>
      <p class="muted small-text">{typical ? t("weatherTypical", { n: w.typicalYears }) : t("weatherForecast")}</p>
    </section>
  );
}

// missingKey says why an analysed day has no weather or no resupply points
// (its rule family's availability; no dates for the weather), or nothing
// when the analysis has not reported on that family yet.
function missingKey(st: StageDetail, family: RuleFamily, dated: boolean): Key | null {
  const f = st.families.find((x) => x.family === family);
  if (!f) return null;
  const weather = family === RuleFamily.WEATHER;
  if (f.availability === ProviderAvailability.NOT_CONFIGURED) return weather ? "weatherOff" : "resupplyOff";
  if (weather && !dated) return "weatherNoDates";
  if (f.availability === ProviderAvailability.UNAVAILABLE) return weather ? "weatherUnavailable" : "resupplyUnavailable";
  return null;
}

// Missing tells the rider why a day shows no weather or no resupply
// points, in their language (the family's reason is the server's English).
export function Missing({ st, dated }: { st: StageDetail; dated: boolean }) {
  const keys = [st.weather ? null : missingKey(st, RuleFamily.WEATHER, dated), st.resupply ? null : missingKey(st, RuleFamily.RESUPPLY, dated)]
    .filter((k): k is Key => k !== null);
  if (keys.length === 0) return null;
  return (
    <section class="missing" data-testid="day-missing">
      {keys.map((k) => <p class="muted small-text">{t(k)}</p>)}
    </section>
  );
}

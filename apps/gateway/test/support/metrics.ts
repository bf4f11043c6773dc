import parsePrometheusTextFormat, { type Family } from 'parse-prometheus-text-format';

/** A gateway's /metrics, parsed by a Prometheus text-format parser (not by hand). */
export async function scrape(url: string): Promise<Family[]> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return parsePrometheusTextFormat(await res.text());
}

/**
 * The sum of a counter's or gauge's samples whose labels include `labels` (a histogram: its
 * observation count); 0 when there are none.
 */
export function total(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  return (family?.metrics ?? [])
    .filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
    .reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
}

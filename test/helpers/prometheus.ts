import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** A scrape, parsed by a Prometheus text-format parser, with look-ups by name and labels. */
export interface Scrape {
  /** The scrape as it was sent. */
  text: string;
  names(): string[];
  type(name: string): string | undefined;
  /** A counter's or gauge's value for exactly these labels; undefined when there is no sample. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** A histogram's count and sum for exactly these labels; undefined when there is no sample. */
  histogram(
    name: string,
    labels?: Record<string, string>,
  ): { count: number; sum: number } | undefined;
}

export function parseScrape(text: string): Scrape {
  const families = parsePrometheusTextFormat(text);
  const family = (name: string) => families.find((f) => f.name === name);
  const sample = (name: string, labels: Record<string, string>) =>
    family(name)?.metrics.find((m) => sameLabels(m.labels ?? {}, labels));
  return {
    text,
    names: () => families.map((f) => f.name),
    type: (name) => family(name)?.type,
    value(name, labels = {}) {
      const found = sample(name, labels);
      return found?.value === undefined ? undefined : Number(found.value);
    },
    histogram(name, labels = {}) {
      if (Object.keys(labels).length > 0) return labelledHistogram(text, name, labels);
      const found = sample(name, labels);
      if (found?.count === undefined) return undefined;
      return { count: Number(found.count), sum: Number(found.sum) };
    },
  };
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * The parser merges a histogram's labelled series into one sample (it keeps only unlabelled
 * histograms' count and sum), so a labelled one is read from its `_count` and `_sum` lines,
 * whose label sets the parser itself reads (as one untyped sample each).
 */
function labelledHistogram(
  text: string,
  name: string,
  labels: Record<string, string>,
): { count: number; sum: number } | undefined {
  const series = (suffix: string) => {
    const lines = text.split('\n').filter((line) => line.startsWith(`${name}${suffix}{`));
    // Under a TYPE line of their own: the parser reads untyped lines as one sample.
    const parsed = parsePrometheusTextFormat(
      `# TYPE ${name}${suffix} gauge\n${lines.join('\n')}\n`,
    );
    const found = parsed[0]?.metrics.find((m) => sameLabels(m.labels ?? {}, labels));
    return found?.value === undefined ? undefined : Number(found.value);
  };
  const count = series('_count');
  const sum = series('_sum');
  return count === undefined || sum === undefined ? undefined : { count, sum };
}

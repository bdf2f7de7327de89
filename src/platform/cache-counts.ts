/** Where a cache reports its look-ups (the metrics' hit and miss counters). */
export interface CacheCounts {
  hit(): void;
  miss(): void;
}

/** For a cache nobody counts (metrics off). */
export const uncounted: CacheCounts = { hit: () => {}, miss: () => {} };

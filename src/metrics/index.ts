/** The public surface of `src/metrics/`: what other folders may import (its README says what the folder is for). */
export { observedDecisions } from './decisions.js';
export { metricsEnabled } from './guard.js';
export { createMetrics, type Metrics } from './instruments.js';
export { observedStore, storeObserver } from './queries.js';
export { aggregateWorkersMetrics, metricsGatherer } from './workers.js';

// Preloaded into the measured service (`node --import bench/loop-delay.mjs ...`): it watches the
// event loop's delay (perf_hooks), and on SIGUSR2 writes what it saw since the last SIGUSR2 to
// BENCH_LOOP_DELAY_FILE, then starts afresh. The bench signals when the measured part starts and
// ends, so the figures are that part's.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_DELAY_FILE;
const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on('SIGUSR2', () => {
  if (file) {
    const ms = (ns) => ns / 1e6;
    writeFileSync(
      file,
      JSON.stringify({
        p50Ms: ms(histogram.percentile(50)),
        p99Ms: ms(histogram.percentile(99)),
        maxMs: ms(histogram.max),
      }),
    );
  }
  histogram.reset();
});

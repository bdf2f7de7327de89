/**
 * A count that a hot path adds to as a plain number, handed to a prom-client counter at each
 * scrape (`flushTo` gives it what was added since the last one): a request then costs an
 * addition, not prom-client's hashing of the label set.
 */
export class Tally {
  private added = 0;
  private reported = 0;

  add(): void {
    this.added += 1;
  }

  /** Gives `counter` (a labelled child, or a function adding to one) what is new since last time. */
  flushTo(counter: { inc(value: number): void }): void {
    counter.inc(this.added - this.reported);
    this.reported = this.added;
  }
}

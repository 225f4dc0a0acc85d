/**
 * A task run again and again beside the sending worker (scheduled backups, the daily sender
 * domain checks): at once on `start()`, then after `nextDelay()` ms each time, one run at a time
 * (a run still going when its time comes again is not started twice), its failure logged and the
 * next run kept. `stop()` runs nothing more and waits for the run in progress. The timer never
 * keeps the process alive.
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly options: {
      run: () => Promise<unknown>;
      nextDelay: () => number;
      onError: (error: unknown) => void;
    },
  ) {}

  /** True once `stop()` was called: a long run may look at it to end early. */
  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running ??= this.options
        .run()
        .then(() => {})
        .catch(this.options.onError)
        .finally(() => {
          this.running = null;
        });
      this.schedule(this.options.nextDelay());
    }, delay);
    this.timer.unref();
  }
}

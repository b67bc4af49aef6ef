/** A benchmark: runs its workload against a baseline and returns a printable report. */
export interface Benchmark {
  name: string;
  run(options: { smoke: boolean }): Promise<string>;
}

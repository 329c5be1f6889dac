/** What `analyseTrace` needs from a model: predicted collective times and, for a job, the step time. */
export interface TraceModel {
  /** Fabric and GPU the predictions are for (preset ids or names). */
  fabric: string;
  gpu: string;
  /** The model's time (us) for one collective, or null where it has none (an op it does not know). */
  predict(
    op: string,
    sizeBytes: number,
    groupSize: number,
    nodesInGroup: number,
    gpusPerNodeInGroup: number,
  ): number | null;
  /** `aifabric plan`'s step time for the job (us), with --job. */
  stepUs?: number;
  /** What the model had to assume (a GPU taken from the trace, a default), shown as warnings. */
  notes?: string[];
}

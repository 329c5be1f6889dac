/**
 * The NCCL version users name (`--nccl-version`, a cluster's `ncclVersion`) and the one assumed when
 * they name none. Import-free and in core so the CLI can declare its flags with them cheaply; the
 * model's tuning table (src/model/nccl-tuning.ts NCCL_VERSIONS) holds an entry for the default, as
 * src/model/nccl-tuning.test.ts checks.
 */
export const DEFAULT_NCCL_VERSION: string = '2.25';

/** 2.X or 2.X.Y: the form `--nccl-version` and a cluster file's `ncclVersion` (spec/cluster.ts) accept. */
export const NCCL_VERSION_FORM = /^2\.\d{1,2}(\.\d{1,2})?$/;

export const isNcclVersion = (value: string): boolean => NCCL_VERSION_FORM.test(value);

/**
 * Errors that reach users. Each carries a stable code and the process exit code the CLI uses
 * (ARCHITECTURE.md: 2 bad usage or input, 3 environment problem). Engines throw these; only cli/ exits.
 */
export type ErrorCode = 'BAD_USAGE' | 'BAD_INPUT' | 'ENVIRONMENT' | 'INTERNAL';

const EXIT_CODE_BY_ERROR: Record<ErrorCode, number> = {
  BAD_USAGE: 2,
  BAD_INPUT: 2,
  ENVIRONMENT: 3,
  INTERNAL: 70,
};

export class AifabricError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AifabricError';
    this.code = code;
    this.exitCode = EXIT_CODE_BY_ERROR[code];
  }
}

/** Bad flag or argument on the command line (exit 2). */
export class UsageError extends AifabricError {
  constructor(message: string) {
    super('BAD_USAGE', message);
    this.name = 'UsageError';
  }
}

/** A file or value that does not have the expected form (exit 2). */
export class InputError extends AifabricError {
  constructor(message: string) {
    super('BAD_INPUT', message);
    this.name = 'InputError';
  }
}

/** Missing tool or permission, a peer that died, a timeout (exit 3). */
export class EnvironmentError extends AifabricError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ENVIRONMENT', message, options);
    this.name = 'EnvironmentError';
  }
}

export function isAifabricError(error: unknown): error is AifabricError {
  return error instanceof AifabricError;
}

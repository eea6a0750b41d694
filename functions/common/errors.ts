/**
 * One error family for the canary's own faults (bad config, bad flags, unreadable secrets).
 * A failing *endpoint* is never thrown: it is a `failed` Verdict.
 */
export const CanaryErrorCode = {
  /** A config file or CLI flag is invalid; the message names the field and the fix. */
  config: 'CONFIG',
  /** A credential the target needs could not be read. */
  secret: 'SECRET',
} as const;
export type CanaryErrorCode = (typeof CanaryErrorCode)[keyof typeof CanaryErrorCode];

export class CanaryError extends Error {
  override readonly name = 'CanaryError';
  constructor(
    readonly code: CanaryErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export function configError(message: string, cause?: unknown): CanaryError {
  return new CanaryError(CanaryErrorCode.config, message, cause === undefined ? undefined : { cause });
}

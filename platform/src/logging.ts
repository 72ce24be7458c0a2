import pino from 'pino';

export type Logger = pino.Logger;

/**
 * The process logger: structured JSON on stdout, one child per component. Tokens, secrets and request
 * bodies are never logged; the redaction list is a safety net, not a licence.
 *
 * @example const log = createLogger({ service: 'gateway' }).child({ component: 'relay' });
 */
export function createLogger(options: {
  service: string;
  level?: string;
  pretty?: boolean;
  /** Where lines go (tests); stdout otherwise. */
  destination?: pino.DestinationStream;
}): Logger {
  // Asynchronous stdout: a busy process writes its lines in batches instead of one write() per line (an
  // access log line per request cost the gateway ~5% of its CPU); pino flushes what is left on exit.
  const destination = options.destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'authorization',
          'token',
          'secret',
          '*.token',
          '*.secret',
          // PostgreSQL errors quote what they refused: `where` the offending JSON text (a request body),
          // `detail` the key or value. Their message and code say enough to act on.
          'err.where',
          'err.detail',
          'err.internalQuery',
          'err.cause.where',
          'err.cause.detail',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

/** A logger that writes nothing; for tests that do not look at logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/**
 * Runs `work` and, while it is not done, warns every `everyMs` that it is still waiting (at warn level, so
 * a start that hangs on a lock, a broker or a registry says where, even with LOG_LEVEL=warn).
 *
 * @example await warnWhileSlow(logger, 'registering event contracts', () => codec.register());
 */
export async function warnWhileSlow<T>(
  logger: Logger,
  step: string,
  work: () => Promise<T>,
  everyMs = 15_000,
): Promise<T> {
  const started = Date.now();
  const timer = setInterval(() => {
    logger.warn({ step, waitedMs: Date.now() - started }, `still ${step}`);
  }, everyMs);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

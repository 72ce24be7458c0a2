import type { Request, RequestHandler, Response } from 'express';

export interface Admission {
  /** Matching requests let past at once; the rest wait. */
  limit: number;
  /** Which requests count; the others pass straight through. */
  matches(req: Request): boolean;
}

/**
 * Lets at most `limit` matching requests past at once; the others wait in arrival order. Behind the body
 * parser it bounds how many large bodies are being validated and turned into events together, while a
 * slow client still sending its body holds no place. A request leaves its place when its response has
 * been sent or its client has gone; a client that goes away while waiting is dropped from the queue.
 *
 * @example app.use(admitAtMost({ limit: 4, matches: (req) => req.method === 'POST' }));
 */
export function admitAtMost({ limit, matches }: Admission): RequestHandler {
  if (!Number.isInteger(limit) || limit < 1)
    throw new TypeError(`admission limit must be a positive integer, got ${limit}`);
  let active = 0;
  const waiting: { res: Response; admit: () => void }[] = [];

  const release = (): void => {
    active -= 1;
    const next = waiting.shift();
    if (next) next.admit();
  };
  const admit = (res: Response, next: () => void): void => {
    active += 1;
    res.once('close', release);
    next();
  };

  return (req, res, next) => {
    if (!matches(req)) {
      next();
      return;
    }
    if (active < limit) {
      admit(res, next);
      return;
    }
    const entry = { res, admit: () => admit(res, next) };
    waiting.push(entry);
    res.once('close', () => {
      const at = waiting.indexOf(entry);
      if (at >= 0) waiting.splice(at, 1);
    });
  };
}

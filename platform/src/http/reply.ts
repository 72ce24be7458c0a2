import type { Pagination } from '@verdict/contracts';
import type { Response } from 'express';
import { sendData } from './respond';

/**
 * What a bound route's handler answers when a plain value (sent as `{ success: true, data }` with 200)
 * does not say it: another status, a page of a list, a header, or a body that is not the envelope.
 */
export class Reply {
  /** Only the `reply` helpers make one, so a handler's value is never mistaken for an answer. */
  private constructor(readonly send: (res: Response) => void | Promise<void>) {}

  /** @internal the factory behind `reply`. */
  static of(send: (res: Response) => void | Promise<void>): Reply {
    return new Reply(send);
  }
}

export interface CreatedOptions {
  /** The new resource's path relative to where the routes are mounted; sent as `Location`. */
  location?: string;
  headers?: Record<string, string>;
}

export interface BodyOptions {
  status?: number;
  /** Sent as an attachment under this name (`Content-Disposition`), characters outside [A-Za-z0-9_.-] replaced. */
  filename?: string;
}

/**
 * The answers of a bound route beyond a plain value.
 *
 * @example return created ? reply.created(run) : run;
 */
export const reply = {
  /** `{ success: true, data }` with this status (and headers). */
  data: (data: unknown, status = 200, headers: Record<string, string> = {}): Reply =>
    Reply.of((res) => {
      res.set(headers);
      sendData(res, data, status);
    }),
  /** 201 with the created resource, its address in `Location` when given. */
  created: (data: unknown, options: CreatedOptions = {}): Reply =>
    Reply.of((res) => {
      if (options.location !== undefined) res.location(`${res.req.baseUrl}${options.location}`);
      res.set(options.headers ?? {});
      sendData(res, data, 201);
    }),
  /** 202: accepted (durably recorded, processed later). */
  accepted: (data: unknown): Reply => Reply.of((res) => sendData(res, data, 202)),
  /** One page of a list (or of what a paged answer holds): `{ success: true, data, pagination }`. */
  page: (data: unknown, pagination: Pagination): Reply =>
    Reply.of((res) => {
      res.status(200).json({ success: true, data, pagination });
    }),
  /** A body that is not the envelope: a PDF, a Markdown document. */
  body: (contentType: string, body: string | Buffer, options: BodyOptions = {}): Reply =>
    Reply.of((res) => {
      res.status(options.status ?? 200).type(contentType);
      if (options.filename !== undefined) {
        const safe = options.filename.replace(/[^A-Za-z0-9_.-]/g, '_');
        res.set('Content-Disposition', `attachment; filename="${safe}"`);
      }
      res.send(body);
    }),
  /** The escape hatch for answers written as they are produced (a download stream): `send` owns `res`. */
  stream: (send: (res: Response) => void | Promise<void>): Reply => Reply.of(send),
};

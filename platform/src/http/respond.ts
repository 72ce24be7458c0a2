import type { Pagination } from '@verdict/contracts';
import type { Response } from 'express';

/**
 * The success half of the spec's envelope (§1): `data`, and `pagination` beside it on lists. Handlers
 * answer through these so that no route invents its own shape.
 */

/**
 * Sends `{ success: true, data }`.
 *
 * @example sendData(res, run);
 */
export function sendData(res: Response, data: unknown, status = 200): void {
  res.status(status).json({ success: true, data });
}

/**
 * Sends one page of a list: `{ success: true, data: items, pagination }`.
 *
 * @example sendList(res, runs, paginationOf(page, limit, total));
 */
export function sendList(res: Response, items: readonly unknown[], pagination: Pagination): void {
  res.status(200).json({ success: true, data: items, pagination });
}

/**
 * Sends 201 with the created resource, and its address in `Location` when given.
 *
 * @example sendCreated(res, run, `/api/public/v1/${projectId}/test-runs/${run.id}`);
 */
export function sendCreated(res: Response, data: unknown, location?: string): void {
  if (location !== undefined) res.location(location);
  sendData(res, data, 201);
}

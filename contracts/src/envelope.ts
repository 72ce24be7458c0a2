import { z } from 'zod';
import { ErrorCode } from './errors';

/** Spec §2: the pagination object; it sits beside `data` (except in the explorer, where it is inside). */
export const Pagination = z.object({
  page: z.number().int().min(1),
  limit: z.number().int().min(1),
  total: z.number().int().min(0),
  hasNext: z.boolean(),
  hasPrev: z.boolean(),
});
export type Pagination = z.infer<typeof Pagination>;

/** Builds the pagination object of a page of `total` items. */
export function paginationOf(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, hasNext: page * limit < total, hasPrev: page > 1 };
}

export const ErrorBody = z.object({
  code: ErrorCode,
  message: z.string(),
});

/** Spec §1: every error answer. */
export const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: ErrorBody,
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** Spec §1: a success answer around `data`. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** Spec §1: a list answer, `pagination` beside `data`. */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.object({ success: z.literal(true), data: z.array(item), pagination: Pagination });
}

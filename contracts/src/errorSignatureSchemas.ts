import { z } from 'zod';

/** The schemas of errorSignature.ts's shapes, as the API shows them. */
export const ErrorFrame = z.object({
  /** The frame's file, relative where it can be told (the test's own file, or its last two segments). */
  file: z.string(),
  /** The function, method or Go symbol; null for an anonymous frame. */
  function: z.string().nullable(),
});
export type ErrorFrame = z.infer<typeof ErrorFrame>;

export const ErrorSignature = z.object({
  /** 12 hexadecimal characters, stable across releases with the same ERROR_SIGNATURE_VERSION. */
  id: z.string().regex(/^[0-9a-f]{12}$/),
  /** The normalised message: at most four lines, placeholders such as <n>, <duration>, <path>. */
  message: z.string(),
  frame: ErrorFrame.nullable(),
  /** One line for people: the message's first line and where it was thrown. */
  text: z.string(),
});
export type ErrorSignature = z.infer<typeof ErrorSignature>;

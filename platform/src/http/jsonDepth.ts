// A JSON body nested thousands of levels deep parses (V8's parser does not recurse) but then breaks every
// recursive step after it: JSON.stringify on the way into the store, pino, the storable() walk, PostgreSQL's
// json parser. No request of the API needs more than a few dozen levels, so deeper ones are refused up front.
import { ValidationError } from '../errors';

/** The deepest nesting of arrays and objects a request body may have (the body itself is level 1). */
export const MAX_JSON_DEPTH = 128;

/**
 * Throws ValidationError when `value` nests arrays and objects deeper than `max`. Iterative, so a value
 * of any depth is measured without exhausting the stack.
 *
 * @example assertJsonDepth(JSON.parse(text)); // throws for `[[[[…]]]]` 10,000 levels deep
 */
export function assertJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH, name = 'body'): void {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop() ?? 1;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) throw new ValidationError(`${name}: nested deeper than ${max} levels`);
    for (const item of Array.isArray(current) ? current : Object.values(current)) {
      if (item !== null && typeof item === 'object') {
        values.push(item);
        depths.push(depth + 1);
      }
    }
  }
}

import request from 'supertest';
import { ValidationError } from '../errors';
import { silentLogger } from '../logging';
import { createHttpApp } from './app';
import { assertJsonDepth, MAX_JSON_DEPTH } from './jsonDepth';
import { parseStorableJson } from './storable';

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('assertJsonDepth', () => {
  it('when a value is nested exactly MAX_JSON_DEPTH levels, then it passes; one more, then it is refused', () => {
    expect(() => assertJsonDepth(JSON.parse(nested(MAX_JSON_DEPTH)))).not.toThrow();
    expect(() => assertJsonDepth(JSON.parse(nested(MAX_JSON_DEPTH + 1)))).toThrow(
      new ValidationError(`body: nested deeper than ${MAX_JSON_DEPTH} levels`),
    );
  });

  it('when a value is a million levels deep, then it is measured without exhausting the stack', () => {
    expect(() => assertJsonDepth(JSON.parse(nested(1_000_000)))).toThrow(ValidationError);
  });

  it('when an NDJSON line is nested too deep, then parseStorableJson refuses it (before its storable walk)', () => {
    const line = `{"stdout":["\\u0000"],"x":${nested(10_000)}}`;
    expect(() => parseStorableJson(line)).toThrow(ValidationError);
  });
});

describe('a JSON body on a route of the public API', () => {
  const { app, finish } = createHttpApp({ logger: silentLogger(), service: 'test', bodyLimit: '64kb' });
  app.post('/echo', (req, res) => res.json({ success: true, data: JSON.stringify(req.body).length }));
  finish(app);

  it.each([
    ['10,000 levels of [', nested(10_000)],
    ['10,000 levels of {"a":', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
    ['a deep value inside an object', `{"customFields":{"x":${nested(5_000)}}}`],
    [
      'a deep value holding a NUL (the storable walk)',
      `{"x":${'["\\u0000",'.repeat(5_000)}1${']'.repeat(5_000)}}`,
    ],
  ])('when it is %s, then 400 VALIDATION_ERROR in the envelope, never a 500', async (_what, body) => {
    const answer = await request(app).post('/echo').set('content-type', 'application/json').send(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: `body: nested deeper than ${MAX_JSON_DEPTH} levels` },
    });
  });

  it('when it is over the body limit, then 413 PAYLOAD_TOO_LARGE in the envelope', async () => {
    const answer = await request(app)
      .post('/echo')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ padding: 'x'.repeat(70 * 1024) }));
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('when it is ordinary, then the route gets it', async () => {
    const answer = await request(app)
      .post('/echo')
      .send({ a: [[[1]]] });
    expect(answer.status).toBe(200);
  });
});

import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { createMcpRelay, selfUrl } from './mcpEndpoint';

const request = (headers: Record<string, string>) => ({ headers: { ...headers } }) as unknown as Request;
const socketAt = (localAddress: string | undefined, localPort: number) =>
  ({ socket: { localAddress, localPort } }) as unknown as IncomingMessage;

describe('the MCP relay mark', () => {
  it('when a request carries this process’s mark, then it is relayed, and the mark is taken off it', () => {
    const relay = createMcpRelay();
    const req = request(relay.header);
    expect(relay.isRelayed(req)).toBe(true);
    expect(Object.keys(req.headers)).toEqual([]);
  });

  it('when a request carries no mark, a wrong one, or another process’s, then it is not relayed', () => {
    const relay = createMcpRelay();
    const [name, value] = Object.entries(relay.header)[0]!;
    expect(relay.isRelayed(request({}))).toBe(false);
    expect(relay.isRelayed(request({ [name]: `${value.slice(0, -1)}x` }))).toBe(false);
    expect(relay.isRelayed(request({ [name]: 'short' }))).toBe(false);
    expect(relay.isRelayed(request(createMcpRelay().header))).toBe(false);
  });
});

describe('selfUrl', () => {
  it.each([
    ['127.0.0.1', 8080, 'http://127.0.0.1:8080'],
    ['::ffff:10.1.2.3', 80, 'http://10.1.2.3:80'],
    ['::1', 3000, 'http://[::1]:3000'],
    [undefined, 9000, 'http://127.0.0.1:9000'],
  ])('when the connection arrived on %s port %i, then the tools call %s', (address, port, url) => {
    expect(selfUrl(socketAt(address, port))).toBe(url);
  });
});

// What a launcher needs to build a gateway: the embedded one mounts it with in-process services, the
// gateway's own main.ts with services over HTTP.
export * from './app';
export { createIdentity, type Identity } from './identity/module';
export { resolveAdminKey } from './identity/adminKey';
export {
  PublicUrlSetting,
  SessionIdleMinutesSetting,
  TrustProxySetting,
  trustProxyOf,
  WebDirSetting,
} from './config';
export type { ServiceMount } from './routing/forward';
export { RateLimitConfig } from './access/rateLimits';
export * from './gateway';
export { SERVICE_ROUTES } from './serviceRoutes';
export type { McpEndpoint, McpEndpointHooks } from './mcp/mcpEndpoint';

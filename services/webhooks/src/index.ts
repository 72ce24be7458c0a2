// What a launcher needs: the module (embedded mounts it in-process; main.ts runs it as its own process).
export { createWebhooksModule, TEST_RESULTS_TOPIC, WEBHOOKS_CONSUMER_GROUP } from './module';
export type { WebhooksModule, WebhooksPorts, WebhooksSettings } from './module';
export { WebhookSettingsConfig } from './config';
export { WEBHOOKS_SCHEMA } from './schema';

import { z } from 'zod';
import { defineEvent, eventJsonSchema } from './events';
import { EVENT_CATALOG } from './eventCatalog';

describe('eventJsonSchema (the schema registry contract of an event)', () => {
  const Thing = defineEvent('thing.happened', 2, z.object({ name: z.string(), note: z.string().optional() }));

  it('when an event is converted, then type and version are pinned, the envelope fields are required and data is its own closed object', () => {
    const schema = eventJsonSchema(Thing) as {
      $schema: string;
      properties: Record<string, { const?: unknown; required?: string[]; additionalProperties?: unknown }>;
      required: string[];
    };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.type?.const).toBe('thing.happened');
    expect(schema.properties.version?.const).toBe(2);
    expect(schema.required).toEqual(
      expect.arrayContaining(['eventId', 'type', 'version', 'streamId', 'occurredAt', 'projectId', 'data']),
    );
    expect(schema.properties.data).toMatchObject({ required: ['name'], additionalProperties: false });
  });

  it('when the catalog is listed, then every event type and version appears once', () => {
    const keys = EVENT_CATALOG.map((event) => `${event.type} v${event.version}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

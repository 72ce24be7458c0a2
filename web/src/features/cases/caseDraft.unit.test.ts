import { changesOf, moved, parseCustomFields, type CaseDraft } from './caseDraft';

const draft = (overrides: Partial<CaseDraft> = {}): CaseDraft => ({
  title: 'Pay',
  description: '',
  preconditions: '',
  postconditions: '',
  status: 'active',
  severity: 'not_set',
  priority: 'high',
  type: 'functional',
  layer: 'e2e',
  behavior: 'positive',
  automationStatus: 'manual',
  flags: [],
  tags: ['a'],
  customFields: '',
  stepFormat: 'Classic',
  classic: [
    { key: 'k1', action: 'Open', data: '', expectedResult: 'Open', text: '', subSteps: [] },
    { key: 'k2', action: 'Pay', data: '42', expectedResult: 'Paid', text: '', subSteps: [] },
  ],
  gherkin: [],
  ...overrides,
});

describe('the case draft', () => {
  it('when nothing changed, then the PATCH is empty', () => {
    expect(changesOf(draft(), draft())).toEqual({});
  });

  it('when steps are reordered, then the PATCH carries the steps in their new order and the format', () => {
    const saved = draft();
    const body = changesOf(saved, { ...saved, classic: moved(saved.classic, 1, 0) });
    expect(body).toEqual({
      stepFormat: 'Classic',
      steps: [
        { action: 'Pay', data: '42', expectedResult: 'Paid', subSteps: [] },
        { action: 'Open', data: '', expectedResult: 'Open', subSteps: [] },
      ],
    });
  });

  it('when fields, flags, tags and custom fields change, then only those are sent', () => {
    const body = changesOf(
      draft(),
      draft({ title: 'Pay twice', flags: ['Muted'], tags: ['a', 'b'], customFields: '{"browser": "any"}' }),
    );
    expect(body).toEqual({
      title: 'Pay twice',
      flags: ['Muted'],
      tags: ['a', 'b'],
      customFields: { browser: 'any' },
    });
  });

  it('when custom fields are not a JSON object, then they say why and are not sent', () => {
    expect(parseCustomFields('[1]')).toHaveProperty('error');
    expect(parseCustomFields('{')).toHaveProperty('error');
    expect(changesOf(draft(), draft({ customFields: '{' }))).toEqual({});
  });
});

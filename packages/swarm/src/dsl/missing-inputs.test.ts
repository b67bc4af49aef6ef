import { describe, expect, it } from 'vitest';
import { missingInputs } from './missing-inputs.js';
import { MissingInputsError } from './missing-inputs-error.js';
import { parseSwarm } from './parse-swarm.js';

const definition = parseSwarm(`
name: needs-inputs
tasks:
  fetch:
    inputs: { region: †input.region, fallback: †input.zone || †data.detected }
    script: { content: echo }
  detect:
    script: { content: echo }
    output: †data.detected
  deploy:
    depends_on: [fetch]
    when: "†input.deploy == true"
    inputs: { region: †input.region, target: †input.config.target }
    script: { content: echo }
  each:
    loop: { type: map, over: †input.items }
    script: { content: echo }
`);

describe('missingInputs', () => {
  it('names each †input a task, a when: or a map loop needs and the start values lack, with its readers', () => {
    expect(missingInputs(definition, {})).toEqual([
      { reference: '†input.region', readers: ['tasks.fetch.inputs.region', 'tasks.deploy.inputs.region'] },
      { reference: '†input.config.target', readers: ['tasks.deploy.inputs.target'] },
      { reference: '†input.deploy', readers: ['tasks.deploy.when'] },
      { reference: '†input.items', readers: ['tasks.each.loop.over'] },
    ]);
  });

  it('is satisfied by the start values, down to nested paths; one side of || is enough', () => {
    expect(
      missingInputs(definition, {
        region: 'eu',
        deploy: false,
        config: { target: 'prod' },
        items: [1, 2],
      }),
    ).toEqual([]);
    // A value present but without the nested key is still missing.
    expect(
      missingInputs(definition, { region: 'eu', deploy: true, config: {}, items: [] }).map(
        (input) => input.reference,
      ),
    ).toEqual(['†input.config.target']);
  });

  it('leaves a swarm that reads no †input alone', () => {
    expect(missingInputs(parseSwarm('name: s\ntasks:\n  t: { script: { content: echo } }'), {})).toEqual([]);
  });

  it('MissingInputsError lists them in its message, with code MISSING_INPUT', () => {
    const error = new MissingInputsError('needs-inputs', missingInputs(definition, { region: 'eu' }));
    expect(error.code).toBe('MISSING_INPUT');
    expect(MissingInputsError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      [
        'swarm needs-inputs needs inputs it was not given:',
        '  †input.config.target (read by tasks.deploy.inputs.target)',
        '  †input.deploy (read by tasks.deploy.when)',
        '  †input.items (read by tasks.each.loop.over)',
      ].join('\n'),
    );
  });
});

// The published JSON Schema (draft-07) of a flow file, generated from the step table.
import { kBareStepNames, kStepNames, stepDefs, type StepDef } from './steps/index.js';
import { duration, kCommonProps, kDefinitions, kVarNamePattern, ref, type JsonSchema } from './parts.js';

const kDefs = kDefinitions as Record<string, JsonSchema>;

/**
 * The argument schema with the step options (label, optional, timeout, screenshots) also allowed
 * inside its map forms, as users write them (`assertVisible: {text: Ready, timeout: 2s}`); a key
 * the argument has itself (selectOption's `label`) keeps its own meaning.
 */
function withOptions(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string') return withOptions({ ...kDefs[schema.$ref.replace('#/definitions/', '')]!, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) });
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: (schema.anyOf as JsonSchema[]).map(withOptions) };
  if (schema.type === 'object' && schema.properties && schema.additionalProperties === false) {
    const own = schema.properties as Record<string, JsonSchema>;
    return { ...schema, properties: { ...own, ...Object.fromEntries(Object.entries(kCommonProps).filter(([k]) => !(k in own))) } };
  }
  return schema;
}

function stepSchema(): JsonSchema {
  return {
    title: 'a step',
    description: 'A one-key map {stepName: argument} plus optional label/optional/timeout/screenshots, or a bare step name.',
    anyOf: [
      { type: 'string', enum: [...kBareStepNames], description: 'A step that takes no argument.' },
      ...kStepNames.map((name) => ({
        type: 'object',
        title: name,
        description: (stepDefs[name] as StepDef).description,
        properties: { [name]: withOptions((stepDefs[name] as StepDef).arg), ...kCommonProps },
        required: [name],
        additionalProperties: false,
      })),
    ],
  };
}

export const kTopLevelProps: Record<string, JsonSchema> = {
  name: { type: 'string', minLength: 1, description: 'Flow name (default: the file name).' },
  tags: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, description: 'Filter with --grep / --tag.' },
  box: { type: 'string', minLength: 1, description: 'linux, android, a box id; omitted: the config default.' },
  appId: { type: 'string', minLength: 1, description: 'The app launchApp, stopApp and clearState act on by default: an Android package, or on a Linux box the app\'s URL.' },
  env: { ...ref('env'), description: 'Variables for ${NAME}; ${env.NAME} reads the process environment.' },
  secrets: {
    type: 'array',
    items: { type: 'string', pattern: kVarNamePattern },
    uniqueItems: true,
    description: 'Names of variables whose values are masked in every report and log.',
  },
  timeout: duration('Whole-flow deadline, e.g. 2m.'),
  stepTimeout: duration('Default timeout of this flow\'s steps (waits), e.g. 10s; a step\'s own timeout wins.'),
  onStart: { ...ref('steps'), description: 'Steps run first.' },
  onFinish: { ...ref('steps'), description: 'Steps always run last, even after a failure.' },
  steps: { ...ref('steps'), description: 'The steps of the flow.' },
};

export const flowSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'boxflow flow',
  description: 'A boxflow flow file (*.flow.yaml). Docs: the flow language.',
  type: 'object',
  properties: kTopLevelProps,
  required: ['steps'],
  additionalProperties: false,
  definitions: {
    ...kDefinitions,
    step: stepSchema(),
    ...Object.fromEntries(kStepNames.map((name) => [`${name}Arg`, { description: (stepDefs[name] as StepDef).description, ...(stepDefs[name] as StepDef).arg }])),
  },
};

/** The exact text of schema/flow.schema.json. */
export function flowSchemaText(): string {
  return `${JSON.stringify(flowSchema, null, 2)}\n`;
}

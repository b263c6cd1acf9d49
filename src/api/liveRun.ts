// boxflow's extension to the live view: what a run shows over a box's live view page (its flow, the
// running step and the steps so far). `boxflow test --live` PUTs it to the `runUrl` of boxflow's
// live-view-url answer; a service whose answer has no `runUrl` gets nothing, and its page shows the
// screen alone. The whole state each time: a PUT repeated or lost midway leaves nothing half-told.
import { Type, type Static } from '@sinclair/typebox';

/** The runner sends the newest steps only: a long flow's page stays light, on the wire and on screen. */
export const kLiveRunMaxSteps = 200;
const kText = 300;

export const LiveRunStep = Type.Object(
  {
    /** The step's dotted path in the flow ("3", "5.2"): nested steps are indented by it. */
    id: Type.String({ minLength: 1, maxLength: 64 }),
    label: Type.String({ maxLength: kText }),
    status: Type.Union([Type.Literal('running'), Type.Literal('passed'), Type.Literal('failed'), Type.Literal('warned'), Type.Literal('skipped')]),
    actionId: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type LiveRunStep = Static<typeof LiveRunStep>;

export const LiveRunState = Type.Object(
  {
    flow: Type.Object(
      {
        name: Type.String({ maxLength: kText }),
        file: Type.Optional(Type.String({ maxLength: kText })),
        attempt: Type.Integer({ minimum: 1, maximum: 1000 }),
        status: Type.Union([Type.Literal('running'), Type.Literal('passed'), Type.Literal('failed'), Type.Literal('flaky'), Type.Literal('skipped')]),
      },
      { additionalProperties: false },
    ),
    steps: Type.Array(LiveRunStep, { maxItems: kLiveRunMaxSteps }),
    /** Steps of the attempt before the first of `steps`. */
    earlier: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type LiveRunState = Static<typeof LiveRunState>;

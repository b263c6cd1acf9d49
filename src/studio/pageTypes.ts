// What boxflow studio's page script (src/browser/studio) exchanges with the studio's server: the
// layout's nodes, an element's selectors, step results and the state. Types only: the server and the
// browser bundle both read them.

export interface TreeNode {
  i: number;
  p: number;
  tag: string;
  id: string;
  text: string;
  desc: string;
  b: [number, number, number, number] | null;
  v: boolean;
}
export interface Candidate {
  value: unknown;
  kind: string;
  count: number;
  unique: boolean;
}
export interface Inspection {
  version: number;
  node: number;
  text: string;
  /** A form field's value (absent for other elements). */
  value?: string;
  dialect: string;
  best: Candidate;
  candidates: Candidate[];
}
export interface StepView {
  id: string;
  label: string;
  command: string;
  status: string;
  durationMs: number;
  actionId?: string;
  message?: string;
  error?: { code: string; message: string };
  images: { name: string; url: string }[];
}
export interface State {
  file: string;
  path: string;
  exists: boolean;
  dialect: string;
  box: { id: string; type: string };
  live: { websocketUrl: string } | null;
  text: string;
  steps: { index: number; line: number; text: string }[];
  results: Record<string, StepView>;
  /** The step that ran last: new steps go after it (-1: before the first; null: at the end). */
  cursor: number | null;
  lastRun: { status: string; steps: StepView[] } | null;
  problem: string | null;
}

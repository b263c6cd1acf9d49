// Public surface of src/layout: pure parsing of screen layouts and selectors over them. No I/O.
export type { Bounds, LayoutNode, LayoutTree, NodeState, Selector, SelectorObject, SelectorKey, SelectorKeyKind, SelectorSize, Trait } from './types.js';
export { kSelectorKeys, kSelectorKeyKinds, kNestedKeys, kPatternKeys, kPositionalKeys, kStateKeys, kTraits } from './types.js';
export { parseLayout, detectFormat, type ParseOptions } from './parse.js';
export { parseAndroid, parseBounds, cleanAndroidXml } from './android.js';
export { parseHtml } from './html.js';
export { fromDomSnapshot, domRef, overflowOf, kSnapshotStyles, type DomSnapshot, type DomRef, type FrameSnapshot, type Viewport } from './domSnapshot.js';
export { query, centre, describeSelector, describeNode, nearMatches, toSelectorObject, selectorKeys, type QueryOptions } from './query.js';
export { parseRegexLiteral, normaliseText, matchText, textMatcher, containsMatcher, type TextMatcher } from './text.js';
export { serializeTree, type SerializedTree, type SerializedNode } from './serialize.js';

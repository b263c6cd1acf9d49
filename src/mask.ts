// The one masker. Every secret value (a flow's `secrets:`, the API key) is replaced by `***` in
// whatever boxflow writes: messages, labels, step args, errors, code frames, layout snapshots and
// reports. There is no minimum length, and every occurrence of every secret (overlapping ones
// too) is hidden: the covered characters become one `***`, so a secret inside a longer one, a
// prefix of another, or two that overlap never leave a readable piece behind. A secret is found in
// any mix of the forms a URL, JSON or markup gives its characters (percent-encoded UTF-8 bytes in
// either hex case, `+` for a space, `\uXXXX`, `&#39;`, ...), not only as itself. Pre-signed URLs
// lose their query (the signature), keeping the path. A leaf module like errors.ts: every folder
// of src/ and reporters/ may import it; it imports nothing.

export const kMaskToken = '***';

/** Query parameters that make a URL a credential: boxflow's `exp`/`sig`, S3/GCS/Azure signatures. */
const kSignedQuery = /[?&](?:sig|exp|signature|x-amz-signature|x-amz-credential|x-goog-signature)=/i;
const kUrl = /\b(?:https?|wss?):\/\/[^\s"'<>`]+/gi;

/** A URL with a signed query keeps scheme, host and path; the query and fragment go. */
export function redactPresignedUrls(text: string): string {
  return text.replace(kUrl, (url) => {
    const q = url.indexOf('?');
    if (q < 0 || !kSignedQuery.test(url.slice(q))) return url;
    return url.slice(0, q);
  });
}

// A secret is hidden in whatever mix of escapes a URL, JSON or markup gives its characters: an
// escape is `%` and the UTF-8 bytes of any character (not only those encodeURIComponent encodes;
// either hex case), a Latin-1 byte, escape()'s `%uXXXX`, `+` for a space, a JSON/JS escape (`\"`,
// `\n`, `\uXXXX`, ...) or a character reference (`&amp;`, `&#39;`, `&#x27;`). Each starts with
// one of kEncodedMark. A text's escapes are found once; an occurrence is then searched from each
// escape that stands for a piece of a secret, as the first escape of the occurrence.

/** Text holding none of these can only show a secret as itself. */
const kEncodedMark = /[%+\\&]/;
const kEscapes = /%([0-9a-fA-F]{2})|%[uU]([0-9a-fA-F]{4})|\\[uU]([0-9a-fA-F]{4})|\\(["\\/bfnrtv0'])|&#(?:([0-9]{1,8})|[xX]([0-9a-fA-F]{1,7}));|&(amp|lt|gt|quot|apos);|\+/g;
const kNamed: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', 0: '\0', amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** A text's escapes: what each stands for (one character, or both halves of one beyond the BMP) → its places, as [at, length] pairs. */
type Escapes = Map<string, number[]>;

function addEscape(out: Escapes, chars: string, at: number, length: number): void {
  const list = out.get(chars);
  if (list) list.push(at, length);
  else out.set(chars, [at, length]);
}

/** Every escape of a text, overlapping ones too (`\\u0041` is a backslash, or `\` and an `A`). */
function escapesOf(text: string): Escapes {
  const out: Escapes = new Map();
  kEscapes.lastIndex = 0;
  for (let m = kEscapes.exec(text); m; m = kEscapes.exec(text)) {
    const at = m.index;
    kEscapes.lastIndex = at + 1;
    const [all, byte, pct16, js16, short, dec, hexCp, named] = m;
    if (all === '+') addEscape(out, ' ', at, 1);
    else if (byte) {
      // The byte alone (ASCII, or Latin-1), and the UTF-8 sequence it may start.
      const b = parseInt(byte, 16);
      addEscape(out, String.fromCharCode(b), at, 3);
      const n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 1;
      if (n > 1) {
        try {
          addEscape(out, decodeURIComponent(text.slice(at, at + 3 * n)), at, 3 * n);
        } catch {
          // not a whole UTF-8 sequence
        }
      }
    } else if (pct16 ?? js16) addEscape(out, String.fromCharCode(parseInt((pct16 ?? js16)!, 16)), at, all.length);
    else if (dec ?? hexCp) {
      const cp = dec ? Number(dec) : parseInt(hexCp!, 16);
      if (cp <= 0x10ffff) addEscape(out, String.fromCodePoint(cp), at, all.length);
    } else addEscape(out, kNamed[(short ?? named)!] ?? short!, at, all.length);
  }
  return out;
}

/** Whether the `j` characters before `text[at]` are `secret[0..j)` themselves. */
function literalBefore(text: string, at: number, secret: string, j: number): boolean {
  for (let q = 1; q <= j; q++) if (text.charCodeAt(at - q) !== secret.charCodeAt(j - q)) return false;
  return true;
}

/** The escapes by place: at → [chars, length, chars, length, ...]. */
function byPlace(escapes: Escapes): Map<number, (string | number)[]> {
  const out = new Map<number, (string | number)[]>();
  for (const [chars, list] of escapes) {
    for (let i = 0; i < list.length; i += 2) {
      const here = out.get(list[i]!);
      if (here) here.push(chars, list[i + 1]!);
      else out.set(list[i]!, [chars, list[i + 1]!]);
    }
  }
  return out;
}

/**
 * Where the occurrence of `secret` that reaches `secret[k]` at `text[i]` ends (the furthest end
 * when escapes allow several), or -1: each character is itself or one of the escapes at its place.
 */
function matchEnd(text: string, secret: string, i: number, k: number, places: Map<number, (string | number)[]>): number {
  let end = -1;
  const seen = new Set<number>();
  const todo = [i, k];
  while (todo.length) {
    const sk = todo.pop()!;
    const ti = todo.pop()!;
    if (sk === secret.length) {
      end = Math.max(end, ti);
      continue;
    }
    const key = ti * (secret.length + 1) + sk;
    if (seen.has(key)) continue;
    seen.add(key);
    if (text.charCodeAt(ti) === secret.charCodeAt(sk)) todo.push(ti + 1, sk + 1);
    const here = places.get(ti);
    if (!here) continue;
    for (let e = 0; e < here.length; e += 2) {
      const chars = here[e] as string;
      if (secret.startsWith(chars, sk)) todo.push(ti + (here[e + 1] as number), sk + chars.length);
    }
  }
  return end;
}

export class Masker {
  #needles: string[] = [];
  /** The secrets holding each character (UTF-16 unit): those an escape standing for it may begin a piece of. */
  #byUnit = new Map<string, string[]>();
  readonly #values = new Set<string>();

  constructor(secrets: Iterable<string | undefined | null> = []) {
    this.add(secrets);
  }

  /** Adds secret values (empty and missing ones are ignored). */
  add(secrets: Iterable<string | undefined | null>): this {
    let changed = false;
    for (const s of secrets) {
      if (typeof s !== 'string' || !s.length || this.#values.has(s)) continue;
      this.#values.add(s);
      changed = true;
    }
    if (changed) {
      this.#needles = [...this.#values];
      this.#byUnit.clear();
      for (const secret of this.#needles) {
        for (const unit of new Set(secret.split(''))) {
          const list = this.#byUnit.get(unit);
          if (list) list.push(secret);
          else this.#byUnit.set(unit, [secret]);
        }
      }
    }
    return this;
  }

  /** A new masker with this one's secrets and `more`. */
  with(more: Iterable<string | undefined | null>): Masker {
    return new Masker(this.#values).add(more);
  }

  get size(): number {
    return this.#values.size;
  }

  /** True when the text holds a secret (in any of its forms). */
  reveals(text: string): boolean {
    return this.#hide(text) !== text;
  }

  /** A text with every secret hidden and signed URLs cut to their path. */
  text(text: string): string {
    return redactPresignedUrls(this.#hide(text));
  }

  /** Every string inside a JSON-like value (arrays, plain objects), deeply; keys stay. */
  deep<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.deep(v)])) as T;
    }
    return value;
  }

  /**
   * An HTML or Android XML layout: text, comments and attribute values are masked; tag and
   * attribute names stay, so the snapshot still parses (a one-letter secret does not break it).
   */
  markup(content: string): string {
    if (!this.#needles.length) return content;
    return content.replace(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<[^>]*>|[^<]+/g, (part) => {
      if (part.startsWith('<!--')) return `<!--${this.#hide(part.slice(4, -3))}-->`;
      if (part.startsWith('<![CDATA[')) return `<![CDATA[${this.#hide(part.slice(9, -3))}]]>`;
      if (!part.startsWith('<')) return this.#hide(part);
      return part.replace(/(=\s*)("[^"]*"|'[^']*'|[^\s"'>=`]+)/g, (_m, eq: string, v: string) => {
        const quoted = v.startsWith('"') || v.startsWith("'");
        return quoted ? `${eq}${v[0]}${this.#hide(v.slice(1, -1))}${v[0]}` : `${eq}${this.#hide(v)}`;
      });
    });
  }

  #hide(text: string): string {
    if (!this.#needles.length || !text) return text;
    // Mark every character any occurrence covers, then write each covered run as one token.
    let covered: Uint8Array | undefined;
    for (const secret of this.#needles) {
      for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) (covered ??= new Uint8Array(text.length)).fill(1, at, at + secret.length);
    }
    if (!kEncodedMark.test(text)) return covered ? this.#tokens(text, covered) : text;
    // An occurrence with escapes: its first escape stands for secret[j..], the j characters before it are themselves.
    const escapes = escapesOf(text);
    let places: Map<number, (string | number)[]> | undefined;
    for (const [chars, list] of escapes) {
      for (const secret of this.#byUnit.get(chars[0]!) ?? []) {
        for (let j = secret.indexOf(chars); j >= 0; j = secret.indexOf(chars, j + 1)) {
          for (let e = 0; e < list.length; e += 2) {
            const at = list[e]!;
            if (at < j || !literalBefore(text, at, secret, j)) continue;
            places ??= byPlace(escapes);
            const end = matchEnd(text, secret, at + list[e + 1]!, j + chars.length, places);
            if (end >= 0) (covered ??= new Uint8Array(text.length)).fill(1, at - j, end);
          }
        }
      }
    }
    return covered ? this.#tokens(text, covered) : text;
  }

  /** Each run of covered characters becomes one token. */
  #tokens(text: string, covered: Uint8Array): string {
    let out = '';
    for (let i = 0; i < text.length; ) {
      if (covered[i]) {
        while (i < text.length && covered[i]) i++;
        out += kMaskToken;
      } else {
        const start = i;
        while (i < text.length && !covered[i]) i++;
        out += text.slice(start, i);
      }
    }
    return out;
  }
}

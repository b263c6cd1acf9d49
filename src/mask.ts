// The one masker. Every secret value (a flow's `secrets:`, the API key) is replaced by `***` in
// whatever boxflow writes: messages, labels, step args, errors, code frames, layout snapshots and
// reports. There is no minimum length, and every occurrence of every secret (overlapping ones
// too) is hidden: the covered characters become one `***`, so a secret inside a longer one, a
// prefix of another, or two that overlap never leave a readable piece behind. Pre-signed URLs
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

function uriEncoded(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text; // a lone surrogate has no URI form
  }
}

/** The forms a secret takes once written into JSON, a URL or markup. */
function variants(secret: string): string[] {
  const xml = secret.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    uriEncoded(secret),
    xml,
    xml.replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
    xml.replace(/"/g, '&quot;').replace(/'/g, '&apos;'),
  ];
}

export class Masker {
  /** Every form of every secret, longest first. */
  #needles: string[] = [];
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
    if (changed) this.#needles = [...new Set([...this.#values].flatMap(variants))].sort((a, b) => b.length - a.length);
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
    for (const needle of this.#needles) {
      for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
        covered ??= new Uint8Array(text.length);
        covered.fill(1, at, at + needle.length);
      }
    }
    if (!covered) return text;
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

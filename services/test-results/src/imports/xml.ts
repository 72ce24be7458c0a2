import { PayloadTooLargeError, ValidationError } from '@verdict/platform';
import type { EntityDecoderOptions } from 'fast-xml-parser';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * Untrusted XML in, a plain element tree out. Reports come from anyone holding an ingest token, so the
 * parser refuses what no test runner writes: documents over the size limit, entities declared in a
 * DOCTYPE (entity expansion, "billion laughs") and absurd nesting. Only the five XML entities and
 * numeric character references are decoded.
 */

export interface XmlElement {
  name: string;
  attributes: Readonly<Record<string, string>>;
  children: XmlElement[];
  /**
   * The element's own text and CDATA sections, in order. Around CDATA, whitespace-only text is layout
   * (`<system-out>\n<![CDATA[…]]>\n</system-out>`) and is left out.
   */
  text: string;
}

export interface XmlLimits {
  maxBytes: number;
  maxDepth: number;
}

/**
 * The text of an XML document received as bytes (XML 1.0 appendix F): a byte order mark decides; else the
 * encoding its declaration names (Surefire writes `encoding="ISO-8859-1"` when told to); else the charset
 * of its Content-Type; else UTF-8. The declaration goes before the header, unlike RFC 7303: the file was
 * written by the runner that knew its encoding, the header by an upload script that may not. A declaration
 * in UTF-16 without a mark is recognised by its first bytes. An encoding this process cannot decode is
 * refused by name.
 *
 * @example const xml = decodeXml(req.body, req.get('content-type'));
 */
export function decodeXml(bytes: Buffer, contentType?: string): string {
  const marked = byteOrderMark(bytes);
  const label = marked?.encoding ?? declaredEncoding(bytes) ?? charsetOf(contentType) ?? 'utf-8';
  let decoder: { decode(input: Uint8Array): string };
  try {
    decoder = new TextDecoder(label);
  } catch {
    throw new ValidationError(`body: the XML's encoding "${label}" is not supported: send UTF-8`);
  }
  return decoder.decode(marked ? bytes.subarray(marked.length) : bytes);
}

function byteOrderMark(bytes: Buffer): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1];
}

/** The encoding of `<?xml … encoding="…"?>`, read from bytes that are ASCII there in any encoding but UTF-16. */
function declaredEncoding(bytes: Buffer): string | undefined {
  if (bytes[0] === 0x3c && bytes[1] === 0x00 && bytes[2] === 0x3f && bytes[3] === 0x00) return 'utf-16le';
  if (bytes[0] === 0x00 && bytes[1] === 0x3c && bytes[2] === 0x00 && bytes[3] === 0x3f) return 'utf-16be';
  const head = bytes.subarray(0, 200).toString('latin1');
  if (!head.startsWith('<?xml')) return undefined;
  const declaration = head.slice(0, head.indexOf('?>') === -1 ? head.length : head.indexOf('?>'));
  return /\sencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/.exec(declaration)?.[1];
}

const ATTRIBUTE_PREFIX = '@_';
const ATTRIBUTES_KEY = ':@';
const TEXT_KEY = '#text';
const CDATA_KEY = '#cdata';

/**
 * Parses an XML document into its root element, or throws a ValidationError (malformed, DOCTYPE
 * entities) or a PayloadTooLargeError.
 *
 * @example const root = parseXml(body, { maxBytes: 50 * 1024 * 1024, maxDepth: 64 });
 */
export function parseXml(xml: string, limits: XmlLimits): XmlElement {
  const bytes = Buffer.byteLength(xml, 'utf8');
  if (bytes > limits.maxBytes) {
    throw new PayloadTooLargeError(`The XML document is ${bytes} bytes; the limit is ${limits.maxBytes}`);
  }
  if (xml.trim() === '') throw new ValidationError('The XML document is empty');
  const validation = XMLValidator.validate(xml);
  if (validation !== true) {
    const { msg, line, col } = validation.err;
    throw new ValidationError(`Malformed XML at line ${line}, column ${col}: ${msg}`, { line, column: col });
  }
  const roots = elementsOf(parseOrdered(xml, limits.maxDepth));
  const root = roots[0];
  if (root === undefined) throw new ValidationError('The XML document has no root element');
  return root;
}

function parseOrdered(xml: string, maxDepth: number): unknown {
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: ATTRIBUTE_PREFIX,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    cdataPropName: CDATA_KEY,
    maxNestedTags: maxDepth,
    entityDecoder: strictEntityDecoder(),
  });
  try {
    return parser.parse(xml);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ValidationError(`Unreadable XML: ${reason}`);
  }
}

const XML_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const LONGEST_REFERENCE = '#x10FFFF'.length;

/**
 * Decodes the five XML entities and character references, nothing else: an entity declared in a DOCTYPE
 * fails the document before any expansion can happen.
 */
function strictEntityDecoder(): EntityDecoderOptions {
  return {
    setExternalEntities: () => undefined,
    addInputEntities: (entities) => {
      const [name] = Object.keys(entities);
      if (name !== undefined) {
        throw new ValidationError(`XML entity declarations are not accepted (found "${name}")`);
      }
    },
    reset: () => undefined,
    setXmlVersion: () => undefined,
    decode: decodeReferences,
  };
}

function decodeReferences(text: string): string {
  let decoded = '';
  let from = 0;
  for (let amp = text.indexOf('&'); amp !== -1; amp = text.indexOf('&', from)) {
    const semicolon = text.indexOf(';', amp + 1);
    const reference =
      semicolon === -1 || semicolon - amp - 1 > LONGEST_REFERENCE
        ? undefined
        : decodeReference(text.slice(amp + 1, semicolon));
    decoded += text.slice(from, amp) + (reference ?? '&');
    from = reference === undefined ? amp + 1 : semicolon + 1;
  }
  return decoded + text.slice(from);
}

function decodeReference(name: string): string | undefined {
  if (name.startsWith('#x') || name.startsWith('#X')) return fromCodePoint(name.slice(2), 16);
  if (name.startsWith('#')) return fromCodePoint(name.slice(1), 10);
  return Object.hasOwn(XML_ENTITIES, name) ? XML_ENTITIES[name] : undefined;
}

/**
 * A reference to NUL, to half a surrogate pair or past U+10FFFF names no character a test could print:
 * U+FFFD, as for the same characters sent raw (Surefire writes a control character it cannot put in XML
 * as such a reference).
 */
function fromCodePoint(digits: string, radix: 10 | 16): string | undefined {
  const valid = radix === 16 ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return undefined;
  const codePoint = Number.parseInt(digits, radix);
  const isSurrogate = codePoint >= 0xd800 && codePoint <= 0xdfff;
  if (codePoint === 0 || codePoint > 0x10ffff || isSurrogate) return '\ufffd';
  return String.fromCodePoint(codePoint);
}

function elementsOf(nodes: unknown): XmlElement[] {
  if (!Array.isArray(nodes)) return [];
  const elements: XmlElement[] = [];
  for (const node of nodes) {
    const element = toElement(node);
    if (element) elements.push(element);
  }
  return elements;
}

function toElement(node: unknown): XmlElement | undefined {
  if (!isRecord(node)) return undefined;
  const name = Object.keys(node).find(
    (key) => key !== ATTRIBUTES_KEY && key !== TEXT_KEY && key !== CDATA_KEY,
  );
  if (name === undefined) return undefined;
  const content = node[name];
  return {
    name,
    attributes: attributesOf(node[ATTRIBUTES_KEY]),
    children: elementsOf(content),
    text: textOf(content),
  };
}

function attributesOf(raw: unknown): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (!isRecord(raw)) return attributes;
  for (const [key, value] of Object.entries(raw)) {
    if (key.startsWith(ATTRIBUTE_PREFIX)) attributes[key.slice(ATTRIBUTE_PREFIX.length)] = String(value);
  }
  return attributes;
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  let hasCdata = false;
  for (const node of content) {
    if (!isRecord(node)) continue;
    if (TEXT_KEY in node) texts.push(String(node[TEXT_KEY]));
    if (CDATA_KEY in node) {
      hasCdata = true;
      texts.push(textOf(node[CDATA_KEY]));
    }
  }
  return (hasCdata ? texts.filter((text) => text.trim() !== '') : texts).join('');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { ValidationError } from '@verdict/platform';
import { decodeXml, parseXml } from './xml';

const limits = { maxBytes: 1024 * 1024, maxDepth: 64 };
const titleOf = (xml: string) => parseXml(xml, limits).children[0]?.attributes.name;

describe('decodeXml: the text of a report received as bytes', () => {
  const latin1 = Buffer.concat([
    Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><testsuite><testcase name="caf'),
    Buffer.from([0xe9]),
    Buffer.from('"/></testsuite>'),
  ]);

  it('when the declaration names ISO-8859-1, then its bytes are read as ISO-8859-1', () => {
    expect(titleOf(decodeXml(latin1))).toBe('café');
  });

  it('when the declaration and the Content-Type charset disagree, then the declaration wins', () => {
    expect(titleOf(decodeXml(latin1, 'application/xml; charset=utf-8'))).toBe('café');
  });

  it('when there is no declaration, then the Content-Type charset decides, and UTF-8 without one', () => {
    const bytes = Buffer.concat([
      Buffer.from('<testsuite><testcase name="caf'),
      Buffer.from([0xe9]),
      Buffer.from('"/></testsuite>'),
    ]);
    expect(titleOf(decodeXml(bytes, 'text/xml; charset="iso-8859-1"'))).toBe('café');
    expect(titleOf(decodeXml(Buffer.from('<testsuite><testcase name="café"/></testsuite>')))).toBe('café');
  });

  it('when the document is UTF-16 with a byte order mark, then it is read as UTF-16', () => {
    const xml = '<?xml version="1.0" encoding="UTF-16"?><testsuite><testcase name="naïve 😀"/></testsuite>';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
    const be = Buffer.from(le.toString('utf16le'), 'utf16le').swap16();
    expect(titleOf(decodeXml(le))).toBe('naïve 😀');
    expect(titleOf(decodeXml(Buffer.concat([Buffer.from([0xfe, 0xff]), be.subarray(2)])))).toBe('naïve 😀');
  });

  it('when the document is UTF-16 without a mark, then its first bytes say so', () => {
    const xml = '<?xml version="1.0" encoding="UTF-16"?><testsuite><testcase name="ø"/></testsuite>';
    expect(titleOf(decodeXml(Buffer.from(xml, 'utf16le')))).toBe('ø');
  });

  it('when a UTF-8 byte order mark leads, then it is not part of the text', () => {
    const text = decodeXml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<testsuite/>')]));
    expect(text).toBe('<testsuite/>');
  });

  it('when the encoding is unknown, then the report is refused naming it', () => {
    const bytes = Buffer.from('<?xml version="1.0" encoding="X-NOPE-42"?><testsuite/>');
    expect(() => decodeXml(bytes)).toThrow(ValidationError);
    expect(() => decodeXml(bytes)).toThrow('"X-NOPE-42" is not supported');
  });
});

describe('parseXml: character references', () => {
  it('when a reference names a character, then it is decoded', () => {
    expect(titleOf('<s><t name="&#233;&#x1F600;&amp;"/></s>')).toBe('é😀&');
  });

  it('when a reference names NUL, half a surrogate pair or no code point, then it becomes U+FFFD', () => {
    expect(titleOf('<s><t name="a&#0;b&#xD800;c&#x110000;d"/></s>')).toBe('a\ufffdb\ufffdc\ufffdd');
  });

  it('when an ampersand starts no reference, then it stays as written', () => {
    expect(titleOf('<s><t name="a &amp;b &#xZZ; c"/></s>')).toBe('a &b &#xZZ; c');
  });
});

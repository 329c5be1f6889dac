/**
 * A small strict XML reader for the JUnit tests: it rejects what a real parser rejects (unclosed or
 * mismatched tags, bad entities, raw `<` or `&` in text or attributes, duplicate attributes, content
 * after the root) and returns the element tree, so structure and counts can be asserted.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /^[A-Za-z_][\w.-]*/;
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

function decode(raw: string, where: string): string {
  const stripped = raw.replace(ENTITY, '');
  if (stripped.includes('&')) throw new Error(`bad entity in ${where}`);
  if (stripped.includes('<')) throw new Error(`raw < in ${where}`);
  return raw
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

export function parseXml(xml: string): XmlElement {
  let position = 0;
  const fail = (message: string): never => {
    throw new Error(`${message} at offset ${position}`);
  };
  const skipSpace = () => {
    while (position < xml.length && /\s/.test(xml[position]!)) position++;
  };
  if (xml.startsWith('<?xml')) {
    const end = xml.indexOf('?>');
    if (end < 0) fail('unterminated XML declaration');
    if (!/^<\?xml version="1\.0"( encoding="UTF-8")?\s*\?>$/.test(xml.slice(0, end + 2)))
      fail('bad XML declaration');
    position = end + 2;
  }
  const parseElement = (): XmlElement => {
    if (xml[position] !== '<') fail('expected <');
    position++;
    const name = NAME.exec(xml.slice(position))?.[0] ?? fail('bad element name');
    position += name.length;
    const attributes: Record<string, string> = {};
    for (;;) {
      skipSpace();
      if (xml.startsWith('/>', position)) {
        position += 2;
        return { name, attributes, children: [], text: '' };
      }
      if (xml[position] === '>') {
        position++;
        break;
      }
      const attribute = NAME.exec(xml.slice(position))?.[0] ?? fail(`bad attribute in <${name}>`);
      position += attribute.length;
      if (xml[position] !== '=' || xml[position + 1] !== '"') fail(`attribute ${attribute} needs ="value"`);
      position += 2;
      const end = xml.indexOf('"', position);
      if (end < 0) fail('unterminated attribute');
      if (attribute in attributes) fail(`duplicate attribute ${attribute}`);
      attributes[attribute] = decode(xml.slice(position, end), `attribute ${attribute}`);
      position = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      const next = xml.indexOf('<', position);
      if (next < 0) fail(`unclosed <${name}>`);
      text += decode(xml.slice(position, next), `text of <${name}>`);
      position = next;
      if (xml.startsWith('</', position)) {
        const close = `</${name}>`;
        if (!xml.startsWith(close, position)) fail(`mismatched close tag for <${name}>`);
        position += close.length;
        return { name, attributes, children, text };
      }
      children.push(parseElement());
    }
  };
  skipSpace();
  const root = parseElement();
  skipSpace();
  if (position !== xml.length) fail('content after the root element');
  return root;
}

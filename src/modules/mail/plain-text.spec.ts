import { htmlToPlainText } from './plain-text.js';

describe('htmlToPlainText', () => {
  it('turns blocks and line breaks into lines, drops tags and decodes entities', () => {
    expect(htmlToPlainText('<h1>Hello</h1><p>A &amp; B &lt;ok&gt;<br>next&nbsp;line</p><p>end</p>')).toBe(
      'Hello\nA & B <ok>\nnext line\nend',
    );
  });

  it('drops scripts and styles with their content', () => {
    expect(htmlToPlainText('<style>p{color:red}</style><p>text</p><script>alert(1)</script>')).toBe('text');
  });

  it('leaves text without markup as it is, and decodes &amp; last', () => {
    expect(htmlToPlainText('plain text, 2 < 3')).toBe('plain text, 2 < 3');
    expect(htmlToPlainText('&amp;lt;')).toBe('&lt;');
  });
});

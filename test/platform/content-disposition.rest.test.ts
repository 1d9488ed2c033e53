import { describe, expect, it } from 'vitest';
import { attachment } from '../../src/rest/content-disposition.ts';

describe('Content-Disposition of downloads (RFC 6266, RFC 5987)', () => {
  it('encodes the characters RFC 5987 does not allow raw in filename*, parentheses, apostrophe and asterisk included', () => {
    expect(attachment("Preisliste (2) – Mai's *neu*.pdf")).toBe(
      `attachment; filename="Preisliste (2) _ Mai's *neu*.pdf"; filename*=UTF-8''Preisliste%20%282%29%20%E2%80%93%20Mai%27s%20%2Aneu%2A.pdf`,
    );
  });

  it('gives an ASCII name as it is, quoting what must be quoted, without filename*', () => {
    expect(attachment('a "quoted" \\ name.zip')).toBe('attachment; filename="a \\"quoted\\" \\\\ name.zip"');
  });

  it('never sends Latin-1 bytes raw: a name with ü gets an ASCII fallback and the UTF-8 filename*', () => {
    expect(attachment('Grüße.png')).toBe(`attachment; filename="Gr__e.png"; filename*=UTF-8''Gr%C3%BC%C3%9Fe.png`);
  });
});

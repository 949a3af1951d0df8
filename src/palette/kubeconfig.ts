/**
 * The kubeconfig endpoint is documented as application/octet-stream, but some Palette
 * versions and proxies hand back the YAML base64-encoded (sometimes as a JSON string).
 * YAML kubeconfigs always contain `:` and spaces, which the base64 alphabet lacks, so a body
 * made only of base64 characters that decodes to text is the encoded form. Pure.
 */

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function looksLikeBase64(text: string): boolean {
  const compact = text.replace(/\s+/g, "");
  return compact.length >= 8 && compact.length % 4 === 0 && BASE64.test(compact);
}

function isMostlyText(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  let printable = 0;
  for (const byte of bytes) {
    if (byte === 9 || byte === 10 || byte === 13 || (byte >= 32 && byte < 127) || byte >= 128) {
      printable++;
    }
  }
  return printable / bytes.length > 0.95;
}

export function decodeKubeconfig(body: Buffer): Buffer {
  let text = body.toString("utf8").trim();
  if (text.startsWith('"') && text.endsWith('"')) {
    try {
      const inner: unknown = JSON.parse(text);
      if (typeof inner === "string") text = inner.trim();
    } catch {
      return body;
    }
  }
  if (!looksLikeBase64(text)) {
    return text === body.toString("utf8").trim() ? body : Buffer.from(text, "utf8");
  }
  const decoded = Buffer.from(text.replace(/\s+/g, ""), "base64");
  return isMostlyText(decoded) ? decoded : body;
}

/**
 * Signs that outside text tries to steer the crew (src/docs/notes/prompt-injection.md#held): text
 * that gives the model instructions, and requests for money, bank details, credentials or codes.
 * A record resting on such input is held for an owner's review; it is never an error run. The
 * patterns are deliberately broad: a held record costs a person one click, an obeyed one can cost
 * a wire transfer.
 */

interface Sign {
  reason: string;
  pattern: RegExp;
}

const SIGNS: Sign[] = [
  {
    reason: "its source gives the assistant instructions",
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,60}\b(?:instructions?|prompts?|rules|guidelines|directions|guardrails|previous|prior|above|earlier)\b/i,
  },
  {
    reason: "its source poses as a system, developer or assistant message",
    pattern:
      /(?:^|[\n[<(#*>"'{]|\s)(?:system|developer|assistant|admin(?:istrator)?)\s*(?:message|prompt|note|notice|override|instruction|update)?\s*(?:[:\]>)]|-{2,}|\*\*)/i,
  },
  {
    reason: "its source asks the assistant to play a role",
    pattern:
      /\b(?:you are now|from now on,? you|act as (?:a|an|the|my)|pretend (?:to be|you are)|role-?play|new instructions|jailbreak|as an ai (?:assistant|model))\b/i,
  },
  {
    reason: "its source holds fake answer data or handles",
    pattern:
      /[{[,]\s*"(?:actions|suggestions|insights|handoffs|contacts|evidence|sameAs|summary|pipeline|priority|relationship|handle)"\s*:/i,
  },
  {
    reason: "its source asks for a payment or a transfer",
    pattern:
      /\b(?:wire|transfer|remit|send|pay|move|deposit)\b[^.\n]{0,80}(?:[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:k|usd|eur|gbp|dollars|euros|pounds)\b|\b(?:funds|money|payment)\b)/i,
  },
  {
    reason: "its source asks for a payment or a transfer",
    pattern: /\b(?:urgent|immediate|overdue|outstanding)\b[^.\n]{0,40}\b(?:payment|transfer|invoice|wire)\b/i,
  },
  {
    reason: "its source asks for bank details",
    pattern:
      /\b(?:bank (?:details|account|info(?:rmation)?|transfer)|account (?:number|no\.?|#)|routing number|iban|swift(?: code)?|sort code|bic code|beneficiary)\b/i,
  },
  {
    reason: "its source asks for gift cards",
    pattern: /\bgift ?cards?\b/i,
  },
  {
    reason: "its source asks for credentials or codes",
    pattern:
      /\b(?:password|passcode|passphrase|credentials?|login details|log-?in details|verification code|security code|one-time (?:code|password|passcode)|otp|2fa|mfa|authenticator code|sign-?in code|api key|private key|seed phrase)\b/i,
  },
  {
    reason: "its source asks for credentials or codes",
    pattern:
      /\b(?:verify|confirm|re-?enter|update|validate)\b[^.\n]{0,30}\b(?:your )?(?:account|identity|login|billing (?:details|information))\b/i,
  },
];

/** The reasons a text shows signs of an attack, each once, in the order above; empty when none. */
export function attackSigns(text: string): string[] {
  const found: string[] = [];
  for (const sign of SIGNS) if (!found.includes(sign.reason) && sign.pattern.test(text)) found.push(sign.reason);
  return found;
}

/** The things a record may repeat from its input: addresses, links, phone and account numbers. */
export interface Particulars {
  kind: "address" | "link" | "phone number" | "account number";
  value: string;
}

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>"')\]]+/gi;
const PHONE = /(?<![\w/.-])\+?\d[\d ().-]{7,}\d(?![\w/])/g;
const ACCOUNT = /\b(?:account|acct|a\/c|iban|routing|sort code)\s*(?:number|no\.?|#)?\s*[:#]?\s*([A-Z]{0,4}\d[\dA-Z -]{2,32}\d)\b/gi;
const LONG_NUMBER = /\b\d{8,}\b/g;

/** Addresses, links, phone and account numbers a text holds, normalized for comparison. */
export function particulars(text: string): Particulars[] {
  const out: Particulars[] = [];
  for (const m of text.matchAll(EMAIL)) out.push({ kind: "address", value: m[0].toLowerCase() });
  for (const m of text.matchAll(URL)) out.push({ kind: "link", value: m[0].replace(/[.,;:!?]+$/, "").toLowerCase() });
  for (const m of text.matchAll(ACCOUNT)) out.push({ kind: "account number", value: digits(m[1] ?? "") });
  for (const m of text.matchAll(LONG_NUMBER)) out.push({ kind: "account number", value: m[0] });
  for (const m of text.matchAll(PHONE)) {
    const d = digits(m[0]);
    // Dates and amounts look like digit runs too: a phone number has 9 to 15 digits (E.164) and a separator or a +.
    if (d.length >= 9 && d.length <= 15 && /[+ ().-]/.test(m[0])) out.push({ kind: "phone number", value: d });
  }
  return out.filter((p) => p.value.length > 0);
}

const digits = (s: string) => s.replace(/[^\dA-Za-z]/g, "").toUpperCase();

/** Whether `haystack` holds the particular (digits compared without separators). */
export function holdsParticular(haystack: string, p: Particulars): boolean {
  if (p.kind === "address" || p.kind === "link") return haystack.toLowerCase().includes(p.value);
  return digits(haystack).includes(p.value);
}

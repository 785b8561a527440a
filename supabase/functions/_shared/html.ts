// The HTML of the mails the functions send: text made safe inside an element or a quoted attribute, and the
// company's closing block (the same markup `npm run gen:company` writes into the auth templates). One escaper for
// every mail. Numeric references (&#39;, not entities' escapeUTF8 with &apos;, which HTML 4 lacks and some mail
// clients' renderers follow HTML 4).

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The company's details as a mail's last paragraph: small and grey, one line each. */
export const companyBlockHtml = (lines: readonly string[]): string =>
  `<p style="margin-top:24px;font-size:12px;line-height:18px;color:#6b7280">${lines.map(escapeHtml).join('<br>')}</p>`;

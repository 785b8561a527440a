/** Fills `{name}` placeholders of a content string: fill('{n} of {total}', {n: 2, total: 5}) is "2 of 5". */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (match, key: string) => (key in values ? String(values[key]) : match));
}

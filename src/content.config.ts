import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { buildClaimResolver, claimsCheckFor } from './content/claims.ts';
import { type ContentCollections, contentCollections } from './content/collections.ts';

/** Each collection keeps its own schema's type, so entries are typed by it. */
type Collections = {
  [K in keyof ContentCollections]: Omit<ReturnType<typeof defineCollection>, 'schema'> & {
    schema: ContentCollections[K]['schema'];
  };
};

// Claim references (`{claim:<id>}`) in an entry's frontmatter and Markdown body become the claim's words as the file
// is read, before the schema or the Markdown renderer sees it (./content/claims.ts). An entry is cached by a digest of
// its file: the claims' files, the check and the day are added to it, so a changed claim or a production build reads
// every entry again.
const claims = buildClaimResolver(process.cwd());
const claimsKey = `${claimsCheckFor(process.env)}:${new Date().toISOString().slice(0, 10)}:${claims.digest}`;

type Loader = ReturnType<typeof glob>;
type LoaderContext = Parameters<Loader['load']>[0];
/**
 * How the glob loader reads a file: Astro hands it `entryTypes` (by extension) beside the documented context. Not in
 * Astro's public types; if it went away, references would show unresolved and the e2e page checks would fail.
 */
interface EntryType {
  getEntryInfo(params: { contents: string; fileUrl: URL }): Promise<{ data: Record<string, unknown>; body: string }>;
}
type GlobContext = LoaderContext & { entryTypes: Map<string, EntryType> };

/** `entryType` reading files with claim references resolved. */
function resolvingClaims(entryType: EntryType, root: URL): EntryType {
  return {
    ...entryType,
    getEntryInfo: async (params) => {
      const info = await entryType.getEntryInfo(params);
      const file = decodeURI(params.fileUrl.href.replace(root.href, ''));
      return { ...info, data: claims.data(info.data, `${file}:`), body: claims.text(info.body, `${file} (body)`) };
    },
  };
}

/** The glob loader of `folder`, with claim references resolved (the claims themselves excepted). */
function contentLoader(folder: string): Loader {
  const inner = glob({ base: `./content/${folder}`, pattern: '**/*.md' });
  if (folder === 'claims') return inner;
  return {
    ...inner,
    load: (context) => {
      const { entryTypes } = context as GlobContext;
      return inner.load({
        ...context,
        generateDigest: (data) => context.generateDigest(typeof data === 'string' ? data + claimsKey : data),
        entryTypes: new Map([...entryTypes].map(([ext, type]) => [ext, resolvingClaims(type, context.config.root)])),
      } as GlobContext);
    },
  };
}

/** Every collection of ./content/collections.ts: the Markdown files of its folder, checked by its schema. */
export const collections = Object.fromEntries(
  Object.entries(contentCollections).map(([name, { folder, schema }]) => [
    name,
    defineCollection({ loader: contentLoader(folder), schema }),
  ]),
) as Collections;

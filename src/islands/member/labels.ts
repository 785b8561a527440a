// The texts of the signed-in pages' islands, by key: each page picks its own from content/labels/<page>.md
// (pickLabels in src/lib/content.ts) and passes them as a prop. /settings' are in settings/labels.ts.

/** /dashboard's labels (content/labels/dashboard.md). */
export const DASHBOARD_LABEL_KEYS = [
  'loading',
  'profileError',
  'goToSignIn',
  'statusHeading',
  'membershipLabel',
  'membership',
  'signalsAccessedLabel',
  'signalsAccessed',
  'lastActiveLabel',
  'lastActive',
  'comingSoon',
] as const;

export type DashboardLabels = Record<(typeof DASHBOARD_LABEL_KEYS)[number], string>;

/** /analysis' labels (content/labels/analysis.md). */
export const ANALYSIS_LABEL_KEYS = ['loading', 'signedOut', 'signIn'] as const;

export type AnalysisLabels = Record<(typeof ANALYSIS_LABEL_KEYS)[number], string>;

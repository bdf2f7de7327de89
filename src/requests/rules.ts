/**
 * What a data-subject request is (PDPA sections 30-36; docs/requests.md): its kinds, the steps
 * it goes through and the order they may come in, and the grounds a refusal may give. Plain
 * data and functions: no store, no HTTP.
 */

/** The rights a request exercises, each with the PDPA section that gives it. */
export const requestKinds = {
  access: 'Access to their data and a copy (section 30)',
  portability: 'Their data in a machine-readable form, or sent on (section 31)',
  objection: 'Objection to the collection, use or disclosure (section 32)',
  erasure: 'Erasure, destruction or anonymisation (section 33)',
  restriction: 'Restriction of use (section 34)',
  rectification: 'Rectification: accurate, current, complete data (sections 35-36)',
  withdrawal: 'Withdrawal of consent (section 19)',
} as const;
export type RequestKind = keyof typeof requestKinds;
export const requestKindNames = Object.keys(requestKinds) as RequestKind[];

/** A request's statuses; each step after `received` sets the status of its name. */
export const requestSteps = [
  'received',
  'identity_checked',
  'in_progress',
  'extended',
  'done',
  'refused',
] as const;
export type RequestStep = (typeof requestSteps)[number];
/** The steps a caller takes (a request is `received` when it is opened). */
export type LaterStep = Exclude<RequestStep, 'received'>;
export const laterSteps = requestSteps.filter((s): s is LaterStep => s !== 'received');

/** The statuses a request is still open in: its clock runs. */
export const openStatuses: readonly RequestStep[] = [
  'received',
  'identity_checked',
  'in_progress',
  'extended',
];

/**
 * The grounds on which the PDPA lets a controller refuse a request, with where it says so. A
 * refusal names one, with a reason in words; both go in the section 39 record.
 */
export const refusalGrounds = {
  identity_not_verified: "The requester's identity or authority could not be verified",
  law_or_court_order: 'Refusal is required by a law or a court order (section 30)',
  rights_of_others:
    'Complying would adversely affect the rights and freedoms of others (sections 30, 31)',
  public_interest:
    'Processing is for a task in the public interest or in the exercise of official authority (sections 31, 32, 33)',
  legal_obligation: 'Processing is needed to comply with a law (sections 31, 33)',
  legal_claims:
    'Processing is needed to establish, comply with, exercise or defend legal claims (sections 32, 33)',
  compelling_legitimate_grounds:
    'Compelling legitimate grounds override the data subject’s interests (section 32)',
  research_or_statistics:
    'Processing is for scientific, historical or statistical research with safeguards (sections 32, 33)',
  freedom_of_expression: 'Processing is for freedom of expression (section 33)',
  not_technically_feasible: 'Sending the data on is not technically feasible (section 31)',
} as const;
export type RefusalGround = keyof typeof refusalGrounds;
export const refusalGroundNames = Object.keys(refusalGrounds) as RefusalGround[];

/** Days from the day a request is received to its due date, and what one extension adds. */
export const dueAfterDays = 30;
export const extensionDays = 30;

/** What a request is, as far as the next step's rule needs it. */
export interface RequestState {
  status: RequestStep;
  extended: boolean;
  identityChecked: boolean;
}

/**
 * Why `step` cannot follow the request's state (a sentence for `409 1005`), or undefined when it
 * may: a closed request takes no step; identity is checked once, before work is done; the time
 * is extended once; a request is done only once the requester's identity was checked.
 */
export function stepRefusal(state: RequestState, step: LaterStep): string | undefined {
  if (!openStatuses.includes(state.status)) {
    return `The request is ${state.status} already; a closed request takes no further step.`;
  }
  if (step === 'identity_checked' && state.identityChecked) {
    return "The requester's identity was checked already.";
  }
  if (step === 'extended' && state.extended) {
    return 'The request was extended already; its time is extended once.';
  }
  if (step === 'done' && !state.identityChecked) {
    return "The requester's identity must be checked (identity_checked) before the request is done.";
  }
  if (step === 'in_progress' && state.status === 'in_progress') {
    return 'The request is in progress already.';
  }
  return undefined;
}

/** What a step's body lacks or has too much of, for `400 1001` (none when it is whole). */
export function stepInputProblems(input: {
  step: LaterStep;
  ground?: string | undefined;
  reason?: string | undefined;
}): { field: string; issue: string }[] {
  const problems: { field: string; issue: string }[] = [];
  const refused = input.step === 'refused';
  if (refused && input.ground === undefined) {
    problems.push({ field: 'ground', issue: 'required to refuse: the PDPA ground' });
  }
  if (input.ground !== undefined && !refusalGroundNames.includes(input.ground as RefusalGround)) {
    problems.push({ field: 'ground', issue: `one of ${refusalGroundNames.join(', ')}` });
  }
  if (!refused && input.ground !== undefined) {
    problems.push({ field: 'ground', issue: 'only a refusal names a ground' });
  }
  const reasoned = refused || input.step === 'extended';
  if (reasoned && (input.reason === undefined || input.reason.trim() === '')) {
    problems.push({ field: 'reason', issue: `required to ${refused ? 'refuse' : 'extend'}` });
  }
  if (!reasoned && input.reason !== undefined) {
    problems.push({ field: 'reason', issue: 'only a refusal or an extension gives a reason' });
  }
  return problems;
}

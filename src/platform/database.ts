import type {
  AccountTokensTable,
  BackofficeFlashesTable,
  BackofficeSessionsTable,
  OperatorsTable,
  RecoveryCodesTable,
  RolesTable,
  SignInChallengesTable,
  SignInThrottleTable,
  UserRolesTable,
  UsersTable,
} from '../accounts/table.js';
import type { ApiKeysTable } from '../api-keys/table.js';
import type { AuditLogTable } from '../audit-trail/table.js';
import type {
  ChannelChangesTable,
  ChannelStatesTable,
  TenantChannelsTable,
} from '../channels/table.js';
import type {
  CookieConfigurationStepsTable,
  CookieConfigurationsTable,
  CookieDecisionsTable,
  CookieSystemsTable,
} from '../cookies/table.js';
import type {
  TlogAuditsTable,
  TlogCheckpointsTable,
  TlogEntriesTable,
  TlogLogsTable,
  TlogNodesTable,
  TlogStateTable,
} from '../decision-log/table.js';
import type {
  CustomerTemplateStatesTable,
  CustomerVersionStatesTable,
  DecisionsTable,
  IdempotencyKeysTable,
} from '../decisions/table.js';
import type { ErasuresTable } from '../erasure/table.js';
import type { TlogPendingTable, WebhookEventsTable } from '../journal/table.js';
import type { PartnerBlockChangesTable, PartnerBlockStatesTable } from '../partner-blocks/table.js';
import type { PartnersTable, VersionPartnersTable } from '../partners/table.js';
import type {
  PreferenceCentresTable,
  PreferenceCodesTable,
  PreferenceLinkUsesTable,
} from '../preference-centre/table.js';
import type { ProductsTable } from '../products/table.js';
import type { SubjectsTable } from '../subjects/table.js';
import type {
  ContentFilesTable,
  TemplatesTable,
  TemplateValidityChangesTable,
  TemplateVersionsTable,
  VersionEditsTable,
  VersionReviewsTable,
} from '../templates/table.js';
import type { TenantsTable } from '../tenants/table.js';
import type {
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookSequenceTable,
} from '../webhooks/table.js';
import type { StoreKeysTable } from './data-key.js';

/** The whole schema, as Kysely sees it; each feature owns its tables. */
export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  products: ProductsTable;
  partners: PartnersTable;
  version_partners: VersionPartnersTable;
  templates: TemplatesTable;
  template_validity_changes: TemplateValidityChangesTable;
  template_versions: TemplateVersionsTable;
  version_reviews: VersionReviewsTable;
  version_edits: VersionEditsTable;
  content_files: ContentFilesTable;
  decisions: DecisionsTable;
  cookie_systems: CookieSystemsTable;
  cookie_configurations: CookieConfigurationsTable;
  cookie_configuration_steps: CookieConfigurationStepsTable;
  cookie_decisions: CookieDecisionsTable;
  channel_changes: ChannelChangesTable;
  channel_states: ChannelStatesTable;
  tenant_channels: TenantChannelsTable;
  partner_block_changes: PartnerBlockChangesTable;
  partner_block_states: PartnerBlockStatesTable;
  preference_centres: PreferenceCentresTable;
  preference_link_uses: PreferenceLinkUsesTable;
  preference_codes: PreferenceCodesTable;
  customer_template_states: CustomerTemplateStatesTable;
  customer_version_states: CustomerVersionStatesTable;
  idempotency_keys: IdempotencyKeysTable;
  operators: OperatorsTable;
  users: UsersTable;
  roles: RolesTable;
  user_roles: UserRolesTable;
  account_tokens: AccountTokensTable;
  recovery_codes: RecoveryCodesTable;
  sign_in_challenges: SignInChallengesTable;
  backoffice_sessions: BackofficeSessionsTable;
  backoffice_flashes: BackofficeFlashesTable;
  sign_in_throttle: SignInThrottleTable;
  audit_log: AuditLogTable;
  subjects: SubjectsTable;
  erasures: ErasuresTable;
  store_keys: StoreKeysTable;
  tlog_logs: TlogLogsTable;
  tlog_state: TlogStateTable;
  tlog_pending: TlogPendingTable;
  tlog_entries: TlogEntriesTable;
  tlog_nodes: TlogNodesTable;
  tlog_checkpoints: TlogCheckpointsTable;
  tlog_audits: TlogAuditsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_sequence: WebhookSequenceTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

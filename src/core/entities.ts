import { ApiKey } from './access/api-key.entity.ts';
import { ApiKeyRoleChange } from './access/api-key-role-change.entity.ts';
import { IdempotencyRecord } from './access/idempotency-record.entity.ts';
import { Member } from './access/member.entity.ts';
import { Team } from './access/team.entity.ts';
import { ApprovalAsset } from './approvals/approval-asset.entity.ts';
import { ApprovalDecision } from './approvals/approval-decision.entity.ts';
import { ApprovalTask } from './approvals/approval-task.entity.ts';
import { ApprovalTemplate } from './approvals/approval-template.entity.ts';
import { LibraryCustomField } from './assets/custom-metadata/custom-field.entity.ts';
import { LibraryCustomFieldTemplate } from './assets/custom-metadata/custom-field-template.entity.ts';
import { LibraryFileCustomValue } from './assets/custom-metadata/file-custom-value.entity.ts';
import { LibraryMetadataField } from './assets/custom-metadata/metadata-field.entity.ts';
import { LibraryMetadataRecord } from './assets/custom-metadata/metadata-record.entity.ts';
import { LibraryFileTag } from './assets/files/file-tag.entity.ts';
import { LibraryFile } from './assets/files/library-file.entity.ts';
import { LibraryTag } from './assets/files/tag.entity.ts';
import { LibraryFolder } from './assets/folders/folder.entity.ts';
import { LibraryFolderMember } from './assets/folders/folder-member.entity.ts';
import { LibraryPendingInbound } from './assets/pending-inbound/pending-inbound.entity.ts';
import { RecycleEntry } from './assets/recycle-bin/recycle-entry.entity.ts';
import { LibraryFileName } from './assets/search/file-name.entity.ts';
import { LibraryVersion } from './assets/search/library-version.entity.ts';
import { LibrarySearchText } from './assets/search/search-text.entity.ts';
import { StoredObjectColour } from './assets/search/stored-object-colour.entity.ts';
import { LibraryTagPosting } from './assets/search/tag-posting.entity.ts';
import { LibraryShare } from './assets/shares/share.entity.ts';
import { StoredObject } from './assets/storage/stored-object.entity.ts';
import { LibraryUpload } from './assets/uploads/upload.entity.ts';
import { VersionLine } from './assets/versions/version-line.entity.ts';
import { ActivityRecord } from './catalogue/activity/activity-record.entity.ts';
import { Brand } from './catalogue/brands/brand.entity.ts';
import { Category } from './catalogue/categories/category.entity.ts';
import { CategoryIcon } from './catalogue/categories/category-icon.entity.ts';
import { DownloadRecord } from './catalogue/products/download-record.entity.ts';
import { Product } from './catalogue/products/product.entity.ts';
import { ProductChange } from './catalogue/products/product-change.entity.ts';
import { declareSyncFeedTriggers } from './catalogue/products/product-change-triggers.ts';
import { ProductHistoryEntry } from './catalogue/products/product-history.entity.ts';
import { ProductShare } from './catalogue/products/product-share.entity.ts';
import { ProductVersion } from './catalogue/products/product-version.entity.ts';
import { ProductInfoTemplate } from './catalogue/templates/template.entity.ts';
import { TemplateBrandBinding } from './catalogue/templates/template-brand-binding.entity.ts';
import { TemplateCategoryBinding } from './catalogue/templates/template-category-binding.entity.ts';
import { TemplateVersion } from './catalogue/templates/template-version.entity.ts';
import { EventSubscription } from './events/event-subscription.entity.ts';
import { WebhookAttempt } from './events/webhook-attempt.entity.ts';
import { WebhookDelivery } from './events/webhook-delivery.entity.ts';
import { WebhookDeliveryLine } from './events/webhook-delivery-line.entity.ts';
import { WebhookEndpoint } from './events/webhook-endpoint.entity.ts';
import { OutboxEvent } from './outbox/outbox-event.entity.ts';
import { Setting } from './platform/setting.entity.ts';

declareSyncFeedTriggers();

/** Every entity of every area; the ORM and the migration generator read this list. */
export const entities = [
  Team,
  Member,
  ApiKey,
  Brand,
  Category,
  CategoryIcon,
  LibraryFolder,
  StoredObject,
  LibraryFile,
  LibraryTag,
  LibraryFileTag,
  StoredObjectColour,
  LibraryShare,
  LibraryFolderMember,
  LibraryVersion,
  LibrarySearchText,
  LibraryTagPosting,
  LibraryFileName,
  ProductInfoTemplate,
  TemplateVersion,
  TemplateBrandBinding,
  TemplateCategoryBinding,
  Product,
  ProductVersion,
  IdempotencyRecord,
  Setting,
  WebhookEndpoint,
  EventSubscription,
  OutboxEvent,
  WebhookDelivery,
  WebhookDeliveryLine,
  WebhookAttempt,
  ApprovalTemplate,
  ApprovalTask,
  ApprovalDecision,
  ApprovalAsset,
  ProductHistoryEntry,
  ActivityRecord,
  DownloadRecord,
  ProductShare,
  LibraryPendingInbound,
  RecycleEntry,
  LibraryMetadataField,
  LibraryMetadataRecord,
  LibraryCustomFieldTemplate,
  LibraryCustomField,
  LibraryFileCustomValue,
  VersionLine,
  ProductChange,
  ApiKeyRoleChange,
  LibraryUpload,
];

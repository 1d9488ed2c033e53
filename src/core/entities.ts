import { ApiKey } from './access/api-key.entity.ts';
import { Member } from './access/member.entity.ts';
import { Team } from './access/team.entity.ts';
import { CategoryIcon } from './catalogue/categories/category-icon.entity.ts';
import { LibraryFolder } from './assets/folders/folder.entity.ts';
import { RecycleEntry } from './assets/recycle-bin/recycle-entry.entity.ts';
import { VersionLine } from './assets/versions/version-line.entity.ts';
import { LibraryFile } from './assets/files/library-file.entity.ts';
import { LibraryPendingInbound } from './assets/pending-inbound/pending-inbound.entity.ts';
import { StoredObject } from './assets/storage/stored-object.entity.ts';
import { LibraryFileName, LibraryFolderMember, LibrarySearchText, LibraryShare, LibraryTagPosting, LibraryVersion, StoredObjectColour } from './assets/search/search.entities.ts';
import { LibraryFileTag, LibraryTag } from './assets/files/tag.entity.ts';
import { CUSTOM_METADATA_ENTITIES } from './assets/custom-metadata/custom-metadata.entities.ts';
import { Brand } from './catalogue/brands/brand.entity.ts';
import { Category } from './catalogue/categories/category.entity.ts';
import { Product } from './catalogue/products/product.entity.ts';
import { ProductVersion } from './catalogue/products/product-version.entity.ts';
import { ProductHistoryEntry } from './catalogue/products/product-history.entity.ts';
import { ActivityRecord } from './catalogue/activity/activity-record.entity.ts';
import { DownloadRecord } from './catalogue/products/download-record.entity.ts';
import { ProductShare } from './catalogue/products/product-share.entity.ts';
import { ProductInfoTemplate, TemplateBrandBinding, TemplateCategoryBinding, TemplateVersion } from './catalogue/templates/template.entity.ts';
import { ApprovalAsset, ApprovalDecision, ApprovalTask, ApprovalTemplate } from './approvals/approval.entities.ts';
import { EventSubscription, OutboxEvent, WebhookAttempt, WebhookDelivery, WebhookDeliveryLine, WebhookEndpoint } from './events/events.entities.ts';
import { IdempotencyRecord } from './platform/idempotency.entity.ts';
import { Setting } from './platform/setting.entity.ts';

/** Every entity of every area; the ORM and the migration generator read this list. */
export const entities = [Team, Member, ApiKey, Brand, Category, CategoryIcon, LibraryFolder, StoredObject, LibraryFile, LibraryTag, LibraryFileTag, StoredObjectColour, LibraryShare, LibraryFolderMember, LibraryVersion, LibrarySearchText, LibraryTagPosting, LibraryFileName, ProductInfoTemplate, TemplateVersion, TemplateBrandBinding, TemplateCategoryBinding, Product, ProductVersion, IdempotencyRecord, Setting, WebhookEndpoint, EventSubscription, OutboxEvent, WebhookDelivery, WebhookDeliveryLine, WebhookAttempt, ApprovalTemplate, ApprovalTask, ApprovalDecision, ApprovalAsset, ProductHistoryEntry, ActivityRecord, DownloadRecord, ProductShare, LibraryPendingInbound, RecycleEntry, ...CUSTOM_METADATA_ENTITIES, VersionLine];

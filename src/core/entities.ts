import { ApiKey } from './access/api-key.entity.ts';
import { Member } from './access/member.entity.ts';
import { Team } from './access/team.entity.ts';
import { Brand } from './catalogue/brand.entity.ts';
import { Category } from './catalogue/category.entity.ts';
import { IdempotencyRecord } from './platform/idempotency.entity.ts';
import { Setting } from './platform/setting.entity.ts';

/** Every entity of every area; the ORM and the migration generator read this list. */
export const entities = [Team, Member, ApiKey, Brand, Category, IdempotencyRecord, Setting];

// the rule lives in the core (signed-link redirects name the file too); adapters use it from here
export { attachment } from '../core/assets/delivery/attachment.ts';

/**
 * Mattermost ids are 26 lowercase letters and digits; this is looser (test fakes use readable
 * ids) but keeps out anything that could change the path of a lookup made with it
 * (`/users/{id}`, `/posts/{id}`, `/channels/{id}/members/{id}`): Client4 does not encode them.
 */
export const MATTERMOST_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

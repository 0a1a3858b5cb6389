-- Local accounts get a password. The column holds a self-describing scrypt hash
-- ($scrypt$ln=..,r=..,p=..$salt$hash), so its cost can be raised later without
-- breaking existing ones. Null on a local account made before this change: the first
-- password given to that account becomes its password (see the service README).
alter table users add column password_hash text;

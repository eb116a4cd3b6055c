-- The roles given runtime access (grantRuntimeAccess), so that every later migration gives
-- them their grants again: migration 5 dropped and created functions, which dropped their
-- EXECUTE grants, and a least-privilege deployment failed until someone granted them by
-- hand. Written by the owner only. Filled here with the roles that hold USAGE on the schema
-- today, the mark grantRuntimeAccess leaves.
CREATE TABLE runtime_roles (
    role text PRIMARY KEY,
    granted_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO runtime_roles (role)
SELECT DISTINCT pg_get_userbyid(a.grantee) FROM pg_namespace n, aclexplode(n.nspacl) a
WHERE n.nspname = current_schema() AND a.privilege_type = 'USAGE' AND a.grantee <> n.nspowner
    AND a.grantee <> 0;
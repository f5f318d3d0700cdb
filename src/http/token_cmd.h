/*
 * token_cmd.h: `contactd token create|revoke|list ...`, run by the daemon's main instead
 * of serving: the calibration layer's token command (calib/token.h) over the store that
 * --store or --db names.
 */
#ifndef CONTACTD_HTTP_TOKEN_CMD_H
#define CONTACTD_HTTP_TOKEN_CMD_H

/*
 * Run the command: argv[0] is "token". The store is store_url (sqlite:PATH,
 * postgresql://...; an unreachable PostgreSQL fails at once), or with NULL the SQLite
 * database at db_path (what the daemon would use). A revocation or rotation is published,
 * so that the daemons' streams see it at once. Returns the process exit status.
 */
int token_cmd_run(int argc, char **argv, const char *db_path, const char *store_url);

#endif

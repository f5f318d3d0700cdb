/*
 * holdflag.h: `contact hold`'s flags for the grasp (issue 48): the object's shape and
 * size, each pad's joint and actuator, each one field of the JSON request set on top of
 * the request read (FILE, standard input or {}), so the service answers and refuses it
 * as POST /v1/hold does the same JSON, naming the field at fault.
 *
 *   --shape sphere|capsule|box   /object/shape
 *   --size R | R,HL | HX,HY,HZ   /object/size (m; one number: a number)
 *   --damping N    /pad/joint/damping (N s/m)   --armature N   /pad/joint/armature (kg)
 *   --frictionloss N   /pad/joint/frictionloss (N)
 *   --actuator motor|position    /pad/actuator/type
 *   --kp N   /pad/actuator/kp (N/m)   --kv N   /pad/actuator/kv (N s/m)
 *   --squeeze N   /pad/actuator/squeeze (m)   --forcerange LO,HI   /pad/actuator/forcerange (N)
 */
#ifndef CONTACTD_CLI_HOLDFLAG_H
#define CONTACTD_CLI_HOLDFLAG_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* The flags' getopt_long entries, their val HOLDFLAG_FIRST + i, and how many: copied
 * into the caller's own option table (the flags are long options only). */
#define HOLDFLAG_FIRST 0x100
#define HOLDFLAG_COUNT 10
extern const struct option holdflag_options[HOLDFLAG_COUNT];

/* The flags given so far (value strings borrowed from argv); zero-initialised: none. */
struct holdflag_set {
	const char *value[HOLDFLAG_COUNT];
	int given;
};

/* Record the flag of getopt value opt (HOLDFLAG_FIRST + i) with its argument. Returns 0,
 * or -1 when opt is not a hold flag. */
int holdflag_take(struct holdflag_set *set, int opt, const char *arg);

/* Print the flags' help lines to f. */
void holdflag_usage(FILE *f);

/*
 * The request text (len bytes) with every given flag's field set (creating the objects
 * on its path; replacing a value there), as a new NUL-terminated string the caller frees.
 * NULL with a sentence in why (why_size bytes) when a flag's value is not of its form (a
 * number, numbers separated by commas, a name) or the text is not a JSON object.
 */
char *holdflag_apply(
    const struct holdflag_set *set, const char *text, size_t len, char *why, size_t why_size);

#endif

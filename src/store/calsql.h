/*
 * calsql.h: the statement both calibration stores, SQLite's (calstore.c) and PostgreSQL's
 * (pgstore.c), run alike on their alike schemas (schema/, schema/pg/) and that decide an
 * answer's shape: written once, so that the two list a robot's calibrations and a
 * calibration's fits alike. A parameter's placeholder is each engine's own spelling (?1, $1). The
 * other statements stay where they run.
 */
#ifndef CONTACTD_STORE_CALSQL_H
#define CONTACTD_STORE_CALSQL_H

#include "store/knobs.h"

/*
 * calibration_list (base/calstore.h): the calibrations of the robot named by placeholder
 * robot with an id above placeholder after, oldest first, at most placeholder limit of them
 * (the index calibrations_by_robot walks them in order), each as its id, created_at, its
 * number of measurements, and its latest fit's id, state, started_at and stored text (NULL
 * when it has none).
 */
#define CALSQL_CALIBRATION_LIST(robot, after, limit)                                               \
	"SELECT c.id, c.created_at, "                                                              \
	"(SELECT count(*) FROM measurements m WHERE m.calibration_id = c.id), "                    \
	"f.id, f.state, f.started_at, f.fit FROM calibrations c "                                  \
	"JOIN robots r ON r.id = c.robot_id "                                                      \
	"LEFT JOIN fits f ON f.id = (SELECT max(g.id) FROM fits g WHERE g.calibration_id = "       \
	"c.id) "                                                                                   \
	"WHERE r.name = " robot " AND c.id > " after " ORDER BY c.id LIMIT " limit

/* calibration_count (base/calstore.h): how many calibrations the robot of placeholder robot_id
 * (its id) holds. */
#define CALSQL_CALIBRATION_COUNT(robot_id)                                                         \
	"SELECT count(*) FROM calibrations WHERE robot_id = " robot_id

/*
 * fit_list (base/calstore.h): the newest STORE_FIT_LIST_MAX_TEXT done fits of the calibration
 * named by placeholder id, oldest first, each as its id and stored text.
 */
#define CALSQL_FIT_LIST(id)                                                                        \
	"SELECT id, fit FROM (SELECT id, fit FROM fits WHERE calibration_id = " id                 \
	" AND state = 'done' ORDER BY id DESC LIMIT " STORE_FIT_LIST_MAX_TEXT                      \
	") AS newest ORDER BY id"

#endif

// Generated from the Mnemos service's /openapi.json by `npm run generate`: do not edit.
export interface paths {
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Interactive API docs (Swagger UI, works offline) */
        get: operations["openapi_docs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs/assets/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A Swagger UI asset of /docs */
        get: operations["openapi_docs_asset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (admin token) */
        get: operations["observability_metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This OpenAPI 3.1 document */
        get: operations["openapi_openapi_json"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: every store answers a probe */
        get: operations["observability_readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ui": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The memory inspector page */
        get: operations["ui_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ui/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A script or stylesheet of the inspector */
        get: operations["ui_asset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export memories as JSONL (admin) */
        get: operations["admin_export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/forget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Forget a user or a scope: memories, episodes, graph mentions and facts (admin; an agent token within a scope it may write) */
        post: operations["admin_forget_"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/hydrate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Write a snapshot back as Core memories */
        post: operations["admin_hydrate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Import JSONL chunk records (admin) */
        post: operations["admin_import_"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/snapshot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Markdown of a scope's Core memories */
        get: operations["admin_snapshot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Index a Markdown document */
        post: operations["admin_index_document"];
        /** Delete a document's chunks */
        delete: operations["admin_delete_document"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/episodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Episodes of a scope, newest first */
        get: operations["sessions_episodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The newest jobs of a scope
         * @description Without `scope`, every job (system jobs too): admin token only.
         */
        get: operations["sessions_jobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A job's state */
        get: operations["sessions_job_status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/kg/entities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live entities of a scope, most mentioned first */
        get: operations["graph_list_entities"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/kg/entities/{entity_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One entity: aliases, current facts and their history */
        get: operations["graph_get_entity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge_graph_search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Entities, facts valid at as_of, and paths */
        post: operations["graph_knowledge_graph_search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List (or search) a scope's memories */
        get: operations["memory_list_memories"];
        put?: never;
        /**
         * Write one memory
         * @description 201 when new; 200 when it merged into, or was skipped as, a duplicate.
         */
        post: operations["memory_create_memory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{ident}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One memory */
        get: operations["memory_get_memory"];
        put?: never;
        post?: never;
        /** Delete one memory */
        delete: operations["memory_delete_memory"];
        options?: never;
        head?: never;
        /**
         * Edit a memory's text, tags, importance, pin or metadata
         * @description The id stays. The replaced state is kept as a version (GET .../history); searches read only the current one. A new text is embedded and extracted into the graph again, and the facts only the old text said are retracted.
         */
        patch: operations["updates_update_memory"];
        trace?: never;
    };
    "/v1/memories/{ident}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A memory's versions, merges and supersession */
        get: operations["updates_memory_history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{ident}/pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pin: Core, never demoted */
        post: operations["memory_pin_memory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/{ident}/unpin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Unpin: decays again */
        post: operations["memory_unpin_memory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Write many memories
         * @description Each item is a MemoryIn, validated on its own: a bad item gets its error in `results`, the others are written.
         */
        post: operations["memory_create_memories"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memories/capture": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Capture a conversation turn */
        post: operations["capture_capture_turn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memory_search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Hybrid recall with a receipt */
        post: operations["memory_memory_search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memory/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Counts by tier, kind and scope
         * @description Without `scope`, every scope: admin token only.
         */
        get: operations["memory_memory_stats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/recall/bundle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Memories packed for one turn */
        post: operations["capture_recall_bundle"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_key}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Consolidate a finished session into an episode (async) */
        post: operations["sessions_complete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/teams/{team_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A team (admin, leader, members) */
        get: operations["agents_get_team"];
        /** Create or replace a team (admin) */
        put: operations["agents_put_team"];
        post?: never;
        /** Delete a team (admin) */
        delete: operations["agents_delete_team"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Registered tokens, never secrets (admin) */
        get: operations["agents_list_tokens"];
        put?: never;
        /** Issue an agent token (admin) */
        post: operations["agents_create_token"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tokens/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a token (admin) */
        delete: operations["agents_revoke_token"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Users with memories in a scope */
        get: operations["updates_list_users"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who the token stands for: admin, or an agent and its scopes */
        get: operations["agents_whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** BatchIn */
        BatchIn: {
            /** Items */
            items: {
                [key: string]: unknown;
            }[];
        };
        /**
         * BatchItem
         * @description Outcome of one batch item: a write status, or `error` with the reason.
         */
        BatchItem: {
            /** @default null */
            error?: components["schemas"]["BatchItemError"] | null;
            /**
             * Id
             * @default null
             */
            id?: string | null;
            /** Index */
            index: number;
            /**
             * Merged Into
             * @default null
             */
            merged_into?: string | null;
            /**
             * Reason
             * @default null
             */
            reason?: string | null;
            /**
             * Status
             * @enum {string}
             */
            status: "created" | "merged" | "superseded_older" | "skipped" | "error";
            /** Superseded */
            superseded?: string[];
        };
        /**
         * BatchItemError
         * @description The error of one batch item, shaped like a whole error response plus its status.
         */
        BatchItemError: {
            /** Details */
            details: components["schemas"]["ErrorDetail"][];
            /** Error */
            error: string;
            /** Message */
            message: string;
            /** Status */
            status: number;
        };
        /**
         * BatchWritten
         * @description `POST /v1/memories/batch`: one result per item, in order, and counts by status.
         */
        BatchWritten: {
            /** Counts */
            counts: {
                [key: string]: number;
            };
            /** Results */
            results: components["schemas"]["BatchItem"][];
        };
        /**
         * BundleIn
         * @description A message about to be sent to the model, for which to recall memories.
         */
        BundleIn: {
            /**
             * Channel
             * @default null
             */
            channel?: string | null;
            /**
             * Max Tokens
             * @default 800
             */
            max_tokens?: number;
            /** Message */
            message: string;
            /**
             * Min Score
             * @description relevance floor on hit confidence: a prompt gets no memory rather than an unrelated one
             * @default 0.4
             */
            min_score?: number;
            /** Scope */
            scope: string;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * BundleOut
         * @description `POST /v1/recall/bundle`: text to put before the model's turn, or why there is none.
         */
        BundleOut: {
            /** Ids */
            ids: string[];
            receipt: components["schemas"]["Receipt"] | null;
            /** Skipped */
            skipped: string | null;
            /** Text */
            text: string;
            /** Tokens */
            tokens: number;
        };
        /**
         * CapturedMemory
         * @description One memory a capture wrote (or merged, or skipped as a duplicate).
         */
        CapturedMemory: {
            /** Id */
            id: string | null;
            /** Kind */
            kind: string;
            /** Reason */
            reason: string | null;
            status: components["schemas"]["WriteStatus"];
            /** Text */
            text: string;
        };
        /**
         * CaptureIn
         * @description One conversation turn offered for capture.
         */
        CaptureIn: {
            /**
             * Channel
             * @default null
             */
            channel?: string | null;
            /**
             * Created At
             * @description the message's time: the memories' event time and the reference of relative dates in it ("last month", "去年"); default now, never before 1900 or in the future
             * @default null
             */
            created_at?: string | null;
            /**
             * Role
             * @default user
             * @enum {string}
             */
            role?: "user" | "assistant" | "system" | "tool";
            /** Scope */
            scope: string;
            /**
             * Source
             * @default null
             */
            source?: string | null;
            /** Text */
            text: string;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * CaptureOut
         * @description `POST /v1/memories/capture`: what was stored, and why anything was not.
         */
        CaptureOut: {
            /** Candidates */
            candidates: number;
            /** Skipped */
            skipped: string | null;
            /** Skipped Items */
            skipped_items: components["schemas"]["Skipped"][];
            /** Stored */
            stored: components["schemas"]["CapturedMemory"][];
        };
        /**
         * Check
         * @description One store probe of `/readyz`.
         */
        Check: {
            /**
             * Error
             * @default null
             */
            error?: string | null;
            /** Ms */
            ms: number;
            /** Ok */
            ok: boolean;
        };
        /**
         * ChunkOut
         * @description A stored memory as returned to clients.
         */
        ChunkOut: {
            /** Access Count */
            access_count: number;
            /** Accessed At */
            accessed_at: string | null;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Doc Path
             * @default null
             */
            doc_path?: string | null;
            /** Entity Ids */
            entity_ids?: string[];
            /** Expires At */
            expires_at: string | null;
            /** Id */
            id: string;
            /** Importance */
            importance: number;
            importance_label: components["schemas"]["ImportanceLabel"];
            kind: components["schemas"]["Kind"];
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /** Pinned */
            pinned: boolean;
            /** Scope */
            scope: string;
            source: components["schemas"]["Source"];
            /**
             * Stale
             * @description each of its facts a later memory replaced
             */
            stale?: components["schemas"]["Supersession"][];
            /** Superseded By */
            superseded_by: string | null;
            /**
             * @description why it is no longer current: the slot, both values, by whom
             * @default null
             */
            supersession?: components["schemas"]["Supersession"] | null;
            /** Tags */
            tags: string[];
            /** Text */
            text: string;
            tier: components["schemas"]["Tier"];
            trust: components["schemas"]["Trust"];
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /** User Id */
            user_id: string | null;
        };
        /**
         * Dedupe
         * @description How an import treats records that are already stored (or repeated in the file).
         * @enum {string}
         */
        Dedupe: "none" | "id" | "id_text";
        /**
         * Deleted
         * @description The id of what was deleted.
         */
        Deleted: {
            /** Deleted */
            deleted: string;
        };
        /** DocumentArgs */
        DocumentArgs: {
            /** Path */
            path: string;
            /** Scope */
            scope: string;
        };
        /**
         * DocumentDeleted
         * @description `DELETE /v1/documents`: chunks removed.
         */
        DocumentDeleted: {
            /** Deleted */
            deleted: number;
            /** Path */
            path: string;
            /** Scope */
            scope: string;
        };
        /**
         * DocumentIn
         * @description `POST /v1/documents` body: a Markdown document to index into `scope`.
         */
        DocumentIn: {
            /** Markdown */
            markdown: string;
            /** Path */
            path: string;
            /** Scope */
            scope: string;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * DocumentReport
         * @description What indexing a document did: chunks in it, embedded anew, reused unchanged, deleted.
         */
        DocumentReport: {
            /** Chunks */
            chunks: number;
            /** Deleted */
            deleted: number;
            /** Embedded */
            embedded: number;
            /** Ids */
            ids?: string[];
            /** Path */
            path: string;
            /** Reused */
            reused: number;
            /** Scope */
            scope: string;
        };
        /**
         * EntitiesArgs
         * @description `GET /v1/kg/entities` query: a scope, an optional name filter, a page size.
         */
        EntitiesArgs: {
            /**
             * Limit
             * @default 50
             */
            limit?: number;
            /**
             * Q
             * @default null
             */
            q?: string | null;
            /** Scope */
            scope: string;
        };
        /**
         * EntityArgs
         * @description Query of `GET /v1/kg/entities/{entity_id}`.
         */
        EntityArgs: {
            /** Scope */
            scope: string;
        };
        /**
         * EntityDetail
         * @description One entity: aliases, facts valid now, and the full history of its facts.
         */
        EntityDetail: {
            /** Current */
            current: components["schemas"]["FactOut"][];
            entity: components["schemas"]["EntityOut"];
            /** History */
            history: components["schemas"]["FactOut"][];
            /** Merged From */
            merged_from?: string[];
        };
        /**
         * EntityList
         * @description `GET /v1/kg/entities`: a page of live entities, most mentioned first, and how many match.
         */
        EntityList: {
            /** Items */
            items: components["schemas"]["EntityOut"][];
            /** Total */
            total: number;
        };
        /**
         * EntityOut
         * @description An entity in a search answer, with its rank score.
         */
        EntityOut: {
            /** Aliases */
            aliases: string[];
            /** Attributes */
            attributes: {
                [key: string]: string[];
            };
            /** Id */
            id: string;
            /** Mention Count */
            mention_count: number;
            /** Name */
            name: string;
            /**
             * Score
             * @default 0
             */
            score?: number;
            /**
             * Seed
             * @description matched the query directly
             * @default false
             */
            seed?: boolean;
            /** Summary */
            summary: string;
            type: components["schemas"]["EntityType"];
        };
        /**
         * EntityType
         * @description Coarse entity kinds; NER labels and parse cues both map onto these.
         * @enum {string}
         */
        EntityType: "person" | "org" | "place" | "project" | "tool" | "product" | "event" | "concept" | "other";
        /**
         * EpisodeList
         * @description `GET /v1/episodes`.
         */
        EpisodeList: {
            /** Count */
            count: number;
            /** Episodes */
            episodes: components["schemas"]["EpisodeOut"][];
        };
        /**
         * EpisodeOut
         * @description An episode as `GET /v1/episodes` returns it.
         */
        EpisodeOut: {
            /** Abstract */
            abstract: string;
            /** Compaction Count */
            compaction_count: number;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Ended At
             * Format: date-time
             */
            ended_at: string;
            /**
             * Expires At
             * Format: date-time
             */
            expires_at: string;
            /** Id */
            id: string;
            /** Message Count */
            message_count: number;
            /** Promoted */
            promoted: boolean;
            /** Promoted At */
            promoted_at: string | null;
            /** Scope */
            scope: string;
            /** Session Key */
            session_key: string;
            /**
             * Started At
             * Format: date-time
             */
            started_at: string;
            /** Summary */
            summary: string;
            /** Summary Source */
            summary_source: string;
            /** Topics */
            topics: string[];
            /** User Id */
            user_id: string | null;
        };
        /** EpisodesQuery */
        EpisodesQuery: {
            /**
             * Limit
             * @default 20
             */
            limit?: number;
            /** Scope */
            scope: string;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * ErrorBody
         * @description Every error response: a stable code, a message, and at least one detail.
         */
        ErrorBody: {
            /** Details */
            details: components["schemas"]["ErrorDetail"][];
            /**
             * Error
             * @description machine-readable code, e.g. invalid_request, not_found
             */
            error: string;
            /** Message */
            message: string;
        };
        /**
         * ErrorDetail
         * @description One problem of a failed request.
         */
        ErrorDetail: {
            /**
             * Loc
             * @description where in the request: field path, `body`, or a path parameter
             * @default null
             */
            loc?: (string | number)[] | null;
            /**
             * Msg
             * @description what is wrong, for people
             */
            msg: string;
            /**
             * Type
             * @description pydantic's error type for validation errors, else the code
             */
            type: string;
        } & {
            [key: string]: unknown;
        };
        /** ExportArgs */
        ExportArgs: {
            /**
             * Redact
             * @description unset: secret-looking spans (keys, passwords, card numbers) are masked; true: emails and phone numbers too; false: nothing is masked
             * @default null
             */
            redact?: boolean | null;
            /**
             * Scope
             * @default null
             */
            scope?: string | null;
        };
        /**
         * FactOut
         * @description A fact with its validity window and provenance.
         */
        FactOut: {
            /** Confidence */
            confidence: number;
            /**
             * Current
             * @description valid at the request's as_of
             */
            current: boolean;
            /** Expired At */
            expired_at: string | null;
            /** Fact */
            fact: string;
            /** Id */
            id: string;
            /** Object */
            object: string;
            /** Object Id */
            object_id: string;
            /** Predicate */
            predicate: string;
            /**
             * Recorded At
             * Format: date-time
             */
            recorded_at: string;
            /** Source Chunk */
            source_chunk: string | null;
            /** Source Episode */
            source_episode: string | null;
            /** Subject */
            subject: string;
            /** Subject Id */
            subject_id: string;
            /** Valid From */
            valid_from: string | null;
            /** Valid To */
            valid_to: string | null;
        };
        /**
         * ForgetIn
         * @description `POST /v1/admin/forget` body: a scope, a user (in every scope, or in `scope`), or both.
         */
        ForgetIn: {
            /**
             * Scope
             * @default null
             */
            scope?: string | null;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * ForgetReport
         * @description What was forgotten, per store.
         */
        ForgetReport: {
            /**
             * Compaction Job
             * @description the job that rewrites the stores without the deleted bytes: once it is done (GET /v1/jobs/{id}), nothing forgotten is left in the data dir; null when no store of this process needs it
             */
            compaction_job: string | null;
            /**
             * Episodes
             * @description episodes deleted from the vector store
             */
            episodes: number;
            /**
             * Graph Entities
             * @description graph entities erased (nothing names them)
             */
            graph_entities: number | null;
            /**
             * Graph Facts
             * @description graph facts erased (only they said them); null when another process owns the graph and forgets the sources from a queued job (facts are then retracted)
             */
            graph_facts: number | null;
            /**
             * Graph Sources
             * @description memories and episodes unlinked in the graph
             */
            graph_sources: number;
            /**
             * Jobs
             * @description queued or running jobs cancelled, their transcripts erased
             */
            jobs: number;
            /**
             * Memories
             * @description memories deleted from the vector store
             */
            memories: number;
            /** Scope */
            scope: string | null;
            /** User Id */
            user_id: string | null;
        };
        /**
         * FusionMethod
         * @description How channel lists are combined.
         * @enum {string}
         */
        FusionMethod: "learned" | "rrf" | "weighted";
        /**
         * Health
         * @description `GET /healthz`: the process is up (no store is probed; see `/readyz`).
         */
        Health: {
            /** Embedder */
            embedder: string;
            /** Graph */
            graph: boolean;
            /**
             * Mode
             * @enum {string}
             */
            mode: "embedded" | "server";
            /**
             * Status
             * @constant
             */
            status: "ok";
        };
        /**
         * Hit
         * @description One recalled memory with the parts of its score.
         */
        Hit: {
            /**
             * Abstract
             * @description L0: one line (with `abstracts`)
             * @default null
             */
            abstract?: string | null;
            /** Components */
            components: {
                [key: string]: number;
            };
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Id */
            id: string;
            /** Importance */
            importance: number;
            kind: components["schemas"]["Kind"];
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /**
             * Overview
             * @description L1: key points (with `abstracts`)
             * @default null
             */
            overview?: string | null;
            /** Pinned */
            pinned: boolean;
            /** Scope */
            scope: string;
            /** Score */
            score: number;
            /**
             * Stale
             * @description facts of it a later memory replaced
             */
            stale?: components["schemas"]["Supersession"][];
            /**
             * Superseded By
             * @description a later memory replaced this one: it answers a question about a past time
             * @default null
             */
            superseded_by?: string | null;
            /**
             * @description why it is no longer current (with `include_superseded`)
             * @default null
             */
            supersession?: components["schemas"]["Supersession"] | null;
            /** Text */
            text: string;
            tier: components["schemas"]["Tier"];
            /** User Id */
            user_id: string | null;
        };
        /**
         * HydrateIn
         * @description `POST /v1/admin/hydrate` body.
         */
        HydrateIn: {
            /** Markdown */
            markdown: string;
            /** Scope */
            scope: string;
        };
        /**
         * HydrateReport
         * @description Counts of a hydrate: entries read, written, skipped because already stored, invalid.
         */
        HydrateReport: {
            /** Errors */
            errors?: components["schemas"]["LineError"][];
            /**
             * Format
             * @default snapshot
             */
            format?: string;
            /**
             * Invalid
             * @default 0
             */
            invalid?: number;
            /**
             * Read
             * @default 0
             */
            read?: number;
            /**
             * Redacted
             * @default 0
             */
            redacted?: number;
            /** Redactions */
            redactions?: components["schemas"]["LineRedaction"][];
            /**
             * Skipped Existing
             * @default 0
             */
            skipped_existing?: number;
            /**
             * Written
             * @default 0
             */
            written?: number;
        };
        /**
         * ImportanceLabel
         * @description Importance as a label; recall fails open must+nice, then unknown, then ignore.
         * @enum {string}
         */
        ImportanceLabel: "must_remember" | "nice_to_have" | "ignore" | "unknown";
        /** ImportArgs */
        ImportArgs: {
            /** @default id */
            dedupe?: components["schemas"]["Dedupe"];
            /**
             * Dry Run
             * @default false
             */
            dry_run?: boolean;
        };
        /**
         * ImportReport
         * @description Counts of an import; `errors` lists the first invalid lines with their numbers.
         */
        ImportReport: {
            /** @default id */
            dedupe?: components["schemas"]["Dedupe"];
            /**
             * Dry Run
             * @default false
             */
            dry_run?: boolean;
            /** Errors */
            errors?: components["schemas"]["LineError"][];
            /**
             * Errors Truncated
             * @default false
             */
            errors_truncated?: boolean;
            /**
             * Imported
             * @default 0
             */
            imported?: number;
            /**
             * Invalid
             * @default 0
             */
            invalid?: number;
            /**
             * Read
             * @default 0
             */
            read?: number;
            /**
             * Redacted
             * @default 0
             */
            redacted?: number;
            /** Redactions */
            redactions?: components["schemas"]["LineRedaction"][];
            /**
             * Skipped Duplicate
             * @default 0
             */
            skipped_duplicate?: number;
        };
        /**
         * JobAccepted
         * @description `POST /v1/sessions/{session_key}/complete`: the job to follow and the episode it makes.
         */
        JobAccepted: {
            /** Episode Id */
            episode_id: string;
            /** Job Id */
            job_id: string;
            /** Status Url */
            status_url: string;
        };
        /**
         * JobInfo
         * @description A job's state as `GET /v1/jobs/<id>` shows it.
         */
        JobInfo: {
            /**
             * Attempts
             * @default 0
             */
            attempts?: number;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Error
             * @default null
             */
            error?: string | null;
            /** Id */
            id: string;
            /** Job */
            job: string;
            /**
             * Result
             * @default null
             */
            result?: unknown;
            state: components["schemas"]["JobStatus"];
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /**
             * Worker
             * @description host:pid of the last process to run it
             * @default null
             */
            worker?: string | null;
        };
        /**
         * JobList
         * @description `GET /v1/jobs`: newest first.
         */
        JobList: {
            /** Jobs */
            jobs: components["schemas"]["JobInfo"][];
        };
        /**
         * JobsQuery
         * @description Query of `GET /v1/jobs`.
         */
        JobsQuery: {
            /**
             * Limit
             * @default 20
             */
            limit?: number;
            /**
             * Scope
             * @default null
             */
            scope?: string | null;
        };
        /**
         * JobStatus
         * @description Where a job is in its life; `queued` again after a failed attempt that will be retried.
         *
         *     `done`, `failed` and `cancelled` are final; `cancelled` is a job whose scope or user was
         *     forgotten before it finished: it never runs (again) and its params are gone.
         * @enum {string}
         */
        JobStatus: "queued" | "running" | "done" | "failed" | "cancelled";
        /**
         * KGSearchRequest
         * @description `knowledge_graph_search` input.
         */
        KGSearchRequest: {
            /**
             * As Of
             * @description world time; default the time the question names, else now
             * @default null
             */
            as_of?: string | null;
            /**
             * Hops
             * @default 2
             */
            hops?: number;
            /**
             * Include History
             * @description also facts that no longer hold (current: false), latest first
             * @default false
             */
            include_history?: boolean;
            /**
             * Limit
             * @default 10
             */
            limit?: number;
            /** Query */
            query: string;
            /** Scope */
            scope: string;
            /**
             * User Id
             * @description who "I"/"my"/"我" are in the question (the asking user)
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * KGSearchResponse
         * @description `knowledge_graph_search` output.
         */
        KGSearchResponse: {
            /**
             * As Of
             * @default null
             */
            as_of?: string | null;
            /** Entities */
            entities?: components["schemas"]["EntityOut"][];
            /** Facts */
            facts?: components["schemas"]["FactOut"][];
            /** Paths */
            paths?: components["schemas"]["PathOut"][];
        };
        /**
         * Kind
         * @description What a memory is; drives default tier and importance.
         * @enum {string}
         */
        Kind: "entity" | "preference" | "fact" | "procedure" | "project_state" | "relationship" | "remember" | "summary" | "lesson" | "failure" | "note" | "document" | "episodic" | "dream";
        /**
         * LineError
         * @description Why one input line (or snapshot entry) was not imported.
         */
        LineError: {
            /**
             * Details
             * @default null
             */
            details?: unknown;
            /** Error */
            error: string;
            /** Line */
            line: number;
            /** Message */
            message: string;
        };
        /**
         * LineRedaction
         * @description Secret spans masked in one input line (or snapshot entry) before it was stored.
         */
        LineRedaction: {
            /** Line */
            line: number;
            /**
             * Redacted
             * @description <field>:<kind>, e.g. metadata.wifi:secret_field
             */
            redacted: string[];
        };
        /** ListArgs */
        ListArgs: {
            /** @default null */
            kind?: components["schemas"]["Kind"] | null;
            /**
             * Limit
             * @default 50
             */
            limit?: number;
            /**
             * Offset
             * @default null
             */
            offset?: string | null;
            /**
             * Q
             * @default null
             */
            q?: string | null;
            /**
             * Scope
             * @default null
             */
            scope?: string | null;
        };
        /**
         * MemoryHistory
         * @description A memory's history: `versions` oldest first, then `current`; the writes merged into it
         *     (the latest `merges`, `merge_count` in all); its supersession state.
         */
        MemoryHistory: {
            current: components["schemas"]["MemoryVersion"];
            /** Id */
            id: string;
            /** Merge Count */
            merge_count: number;
            /** Merges */
            merges: components["schemas"]["MergeRecord"][];
            /** Scope */
            scope: string;
            /**
             * Stale
             * @description facts of this memory that later memories replaced, each with its slot, both values and the replacing memory (a memory is superseded once all are)
             */
            stale?: {
                [key: string]: unknown;
            }[];
            /**
             * Superseded
             * @description true: no longer current, searches leave it out
             */
            superseded: boolean;
            superseded_by: components["schemas"]["Superseder"] | null;
            /**
             * Supersedes
             * @description memories this one superseded (at most 50)
             */
            supersedes: components["schemas"]["SupersededMemory"][];
            /**
             * Version
             * @description the current version: 1 + the number of edits
             */
            version: number;
            /** Versions */
            versions: components["schemas"]["MemoryVersion"][];
        };
        /**
         * MemoryIn
         * @description One memory to write.
         */
        MemoryIn: {
            /**
             * Created At
             * @description event time; default now
             * @default null
             */
            created_at?: string | null;
            /**
             * Entity Key
             * @description e.g. phone:+4930123; dedup key
             * @default null
             */
            entity_key?: string | null;
            /**
             * Expires At
             * @default null
             */
            expires_at?: string | null;
            /**
             * Importance
             * @default null
             */
            importance?: number | null;
            /** @default null */
            importance_label?: components["schemas"]["ImportanceLabel"] | null;
            /** @default note */
            kind?: components["schemas"]["Kind"];
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Pinned
             * @default false
             */
            pinned?: boolean;
            /** Scope */
            scope: string;
            /** @default user */
            source?: components["schemas"]["Source"];
            /**
             * Source Ref
             * @default null
             */
            source_ref?: string | null;
            /** Tags */
            tags?: string[];
            /** Text */
            text: string;
            /** @default null */
            tier?: components["schemas"]["Tier"] | null;
            /** @default trusted */
            trust?: components["schemas"]["Trust"];
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * MemoryList
         * @description `GET /v1/memories`: a page of memories; pass `next` as `offset` for the next page.
         */
        MemoryList: {
            /** Items */
            items: components["schemas"]["ChunkOut"][];
            /** Next */
            next: string | null;
        };
        /**
         * MemoryPatch
         * @description The fields of a memory to change; those left out stay as they are. `tags` and
         *     `metadata` replace the stored ones. `reason` is kept with the replaced version.
         */
        MemoryPatch: {
            /**
             * Importance
             * @default null
             */
            importance?: number | null;
            /**
             * Metadata
             * @description replaces the metadata
             * @default null
             */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /**
             * Pinned
             * @description true: Core, never demoted
             * @default null
             */
            pinned?: boolean | null;
            /**
             * Reason
             * @description why: kept in the history
             * @default null
             */
            reason?: string | null;
            /**
             * Tags
             * @description replaces the tags
             * @default null
             */
            tags?: string[] | null;
            /**
             * Text
             * @description new text: re-embedded and extracted into the graph again
             * @default null
             */
            text?: string | null;
        };
        /**
         * MemoryVersion
         * @description An earlier state of a memory's editable fields, kept when an edit replaced it.
         */
        MemoryVersion: {
            /**
             * Changed
             * @description the fields the edit changed
             */
            changed?: string[];
            /**
             * Importance
             * @default 0.5
             */
            importance?: number;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            };
            /**
             * Pinned
             * @default false
             */
            pinned?: boolean;
            /**
             * Reason
             * @description the edit's reason, if one was given
             * @default null
             */
            reason?: string | null;
            /**
             * Replaced At
             * @description when an edit replaced it; null for the current version
             * @default null
             */
            replaced_at?: string | null;
            /**
             * Since
             * Format: date-time
             * @description when this version was written
             */
            since: string;
            /** Tags */
            tags?: string[];
            /** Text */
            text: string;
            /**
             * Version
             * @description 1 is the memory as first written
             */
            version: number;
        };
        /**
         * MemoryWritten
         * @description `POST /v1/memories`: what the write did, and the stored memory.
         */
        MemoryWritten: {
            /** Id */
            id: string | null;
            /** @default null */
            memory?: components["schemas"]["ChunkOut"] | null;
            /**
             * Merged Into
             * @default null
             */
            merged_into?: string | null;
            /**
             * Reason
             * @default null
             */
            reason?: string | null;
            status: components["schemas"]["WriteStatus"];
            /** Superseded */
            superseded?: string[];
        };
        /**
         * MergeRecord
         * @description A write that merged into this memory instead of becoming a memory of its own.
         */
        MergeRecord: {
            /**
             * At
             * Format: date-time
             */
            at: string;
            /**
             * Reason
             * @description same text, same entity key or similar text
             */
            reason: string;
            /** @default user */
            source?: components["schemas"]["Source"];
            /**
             * Text
             * @description the merged text as written (the memory keeps its own)
             */
            text: string;
            /** @default trusted */
            trust?: components["schemas"]["Trust"];
        };
        /**
         * PathOut
         * @description A chain of facts from a seed entity to a ranked one.
         */
        PathOut: {
            /** Entity Ids */
            entity_ids: string[];
            /** Fact Ids */
            fact_ids: string[];
            /** Text */
            text: string;
        };
        /**
         * Ready
         * @description `GET /readyz`: every store answered (200) or one did not (503).
         */
        Ready: {
            /** Checks */
            checks: {
                [key: string]: components["schemas"]["Check"];
            };
            /**
             * Mode
             * @enum {string}
             */
            mode: "embedded" | "server";
            /**
             * Status
             * @enum {string}
             */
            status: "ready" | "unavailable";
            /** Version */
            version: string;
        };
        /**
         * Receipt
         * @description Why these hits: per-channel tops, fused order, scopes read and time per stage.
         */
        Receipt: {
            /**
             * Below Floor
             * @description candidates dropped by the floor
             * @default 0
             */
            below_floor?: number;
            /**
             * Candidates
             * @description with `explain`: every channel candidate and its raw score
             * @default null
             */
            candidates?: {
                [key: string]: [
                    string,
                    number
                ][];
            } | null;
            /** Channels */
            channels: {
                [key: string]: string[];
            };
            /**
             * Factors
             * @description with `explain`: per candidate the multipliers and confidence ranking used
             * @default null
             */
            factors?: {
                [key: string]: {
                    [key: string]: number;
                };
            } | null;
            /**
             * Fallback
             * @default null
             */
            fallback?: string | null;
            /** Fused */
            fused: string[];
            /** Latency Ms */
            latency_ms: {
                [key: string]: number;
            };
            /**
             * Min Score
             * @description the relevance floor applied
             * @default null
             */
            min_score?: number | null;
            /**
             * Policy Tier
             * @default null
             */
            policy_tier?: string | null;
            /** Scopes */
            scopes: string[];
            /**
             * Skip Reason
             * @default null
             */
            skip_reason?: string | null;
            /**
             * Speakers
             * @description speakers the query names
             */
            speakers?: string[];
        };
        /**
         * SearchFilters
         * @description Metadata filters applied inside the store.
         */
        SearchFilters: {
            /**
             * Created After
             * @default null
             */
            created_after?: string | null;
            /**
             * Created Before
             * @default null
             */
            created_before?: string | null;
            /**
             * Kinds
             * @default null
             */
            kinds?: components["schemas"]["Kind"][] | null;
            /**
             * Pinned
             * @default null
             */
            pinned?: boolean | null;
            /**
             * Tags
             * @default null
             */
            tags?: string[] | null;
            /**
             * Tiers
             * @default null
             */
            tiers?: components["schemas"]["Tier"][] | null;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * SearchMode
         * @description Which channels a search uses.
         * @enum {string}
         */
        SearchMode: "hybrid" | "dense" | "bm25";
        /**
         * SearchRequest
         * @description A `memory_search` call.
         */
        SearchRequest: {
            /**
             * Abstracts
             * @description each hit carries its L0 abstract (one line) and L1 overview (key points)
             * @default false
             */
            abstracts?: boolean;
            /**
             * Explain
             * @description the receipt lists every channel candidate with its score
             * @default false
             */
            explain?: boolean;
            filters?: components["schemas"]["SearchFilters"];
            /**
             * @description learned (a logistic model over channel features, fitted by cross-validation), rrf or weighted; unset: the calibrated default
             * @default null
             */
            fusion?: components["schemas"]["FusionMethod"] | null;
            /**
             * Graph
             * @description fuse the graph channel in hybrid mode: true turns it on (a quarter of BM25's weight unless `weights.graph` says otherwise), false off; unset: the calibrated default
             * @default null
             */
            graph?: boolean | null;
            /**
             * Hops
             * @default 1
             */
            hops?: number;
            /**
             * Include Superseded
             * @default false
             */
            include_superseded?: boolean;
            /**
             * Min Score
             * @description relevance floor on each hit's `confidence` (0-1: share of query terms it holds or calibrated cosine); unset: the calibrated default floor
             * @default null
             */
            min_score?: number | null;
            /** @default hybrid */
            mode?: components["schemas"]["SearchMode"];
            /** Query */
            query: string;
            /** Scope */
            scope: string;
            /**
             * Top K
             * @default 10
             */
            top_k?: number;
            /**
             * Touch
             * @description record the recall on the hits (access count, tier); false for evaluations that must not change the store
             * @default true
             */
            touch?: boolean;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
            /**
             * Weights
             * @description per-channel fusion weights (>= 0; 0 turns a channel off); unset: the calibrated defaults of recall.read.fusion.DEFAULT_FUSION
             * @default null
             */
            weights?: {
                [key: string]: number;
            } | null;
        };
        /**
         * SearchResponse
         * @description Hits best first, and the receipt.
         */
        SearchResponse: {
            /** Hits */
            hits: components["schemas"]["Hit"][];
            receipt: components["schemas"]["Receipt"];
        };
        /**
         * SessionIn
         * @description Body of `POST /v1/sessions/<session_key>/complete`.
         */
        SessionIn: {
            /**
             * Compaction Count
             * @default 0
             */
            compaction_count?: number;
            /** Messages */
            messages: components["schemas"]["SessionMessage"][];
            /** Scope */
            scope: string;
            /**
             * Summary
             * @default null
             */
            summary?: string | null;
            /**
             * User Id
             * @default null
             */
            user_id?: string | null;
        };
        /**
         * SessionMessage
         * @description One message of a completed session.
         */
        SessionMessage: {
            /** Content */
            content: string;
            /**
             * Role
             * @enum {string}
             */
            role: "user" | "assistant" | "system" | "tool";
            /**
             * Ts
             * Format: date-time
             */
            ts: string;
        };
        /**
         * Skipped
         * @description A part of the turn that was not captured, and why.
         */
        Skipped: {
            /**
             * Detail
             * @default null
             */
            detail?: string | null;
            reason: components["schemas"]["SkipReason"];
            /** Text */
            text: string;
        };
        /**
         * SkipReason
         * @description Why (part of) a turn was not captured.
         * @enum {string}
         */
        SkipReason: "empty" | "system_channel" | "not_user" | "injected" | "secret" | "question" | "not_salient" | "low_confidence" | "over_limit" | "duplicate";
        /** SnapshotArgs */
        SnapshotArgs: {
            /** Scope */
            scope: string;
        };
        /**
         * Source
         * @description Who wrote a memory.
         * @enum {string}
         */
        Source: "user" | "operator" | "tool" | "import" | "system" | "consolidation";
        /**
         * Stats
         * @description Counts of live memories.
         */
        Stats: {
            /** By Kind */
            by_kind: {
                [key: string]: number;
            };
            /** By Scope */
            by_scope: {
                [key: string]: number;
            };
            /** By Tier */
            by_tier: {
                [key: string]: number;
            };
            /** Pinned */
            pinned: number;
            /** Superseded */
            superseded: number;
            /** Total */
            total: number;
        };
        /** StatsArgs */
        StatsArgs: {
            /**
             * Scope
             * @default null
             */
            scope?: string | null;
        };
        /**
         * SupersededMemory
         * @description A memory this one superseded.
         */
        SupersededMemory: {
            /** At */
            at: string | null;
            /** Id */
            id: string;
            /** Text */
            text: string;
        };
        /**
         * Superseder
         * @description The memory that superseded this one, and why.
         */
        Superseder: {
            /**
             * At
             * @description when this memory last changed: its supersession
             */
            at: string | null;
            /**
             * Details
             * @description what the write recorded: slot, subject, old_value, new_value, by, rule
             */
            details?: {
                [key: string]: unknown;
            };
            /**
             * Id
             * @description null when the write did not record it
             */
            id: string | null;
            /**
             * Reason
             * @description why, when the write recorded it
             */
            reason: string | null;
            /**
             * Text
             * @description its text; null when it has been deleted since
             */
            text: string | null;
        };
        /**
         * Supersession
         * @description Why one fact of a memory is no longer current: the slot, both values, and by what.
         */
        Supersession: {
            /**
             * By
             * @description the id of the memory that replaced it
             */
            by: string;
            /**
             * Clause
             * @description the clause of the memory that stated it
             * @default 0
             */
            clause?: number;
            /** New Value */
            new_value: string;
            /** Old Value */
            old_value: string;
            /**
             * Rule
             * @description slot, negation, retracted or older_event
             */
            rule: string;
            /** Slot */
            slot: string;
            /**
             * Subject
             * @description whose fact: a name, a user id or "self"
             */
            subject: string;
        };
        /**
         * TeamIn
         * @description `PUT /v1/teams/<team_id>` body: agent ids.
         */
        TeamIn: {
            /** Leader */
            leader: string;
            /** Members */
            members: string[];
        };
        /**
         * TeamOut
         * @description A team and its leader's scope.
         */
        TeamOut: {
            /** Leader */
            leader: string;
            /** Leader Scope */
            leader_scope: string;
            /** Members */
            members: string[];
            /** Team Id */
            team_id: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /**
         * Tier
         * @description Core never decays below 0.9 and is never demoted when pinned; peripheral fades fast.
         * @enum {string}
         */
        Tier: "core" | "working" | "peripheral";
        /** TokenArgs */
        TokenArgs: {
            /**
             * Agent Id
             * @default null
             */
            agent_id?: string | null;
            /**
             * Include Revoked
             * @default false
             */
            include_revoked?: boolean;
        };
        /**
         * TokenCreated
         * @description `POST /v1/tokens`: the secret is shown only here.
         */
        TokenCreated: {
            /** Agent Id */
            agent_id: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Read Fallback */
            read_fallback: string[];
            /**
             * Revoked At
             * @default null
             */
            revoked_at?: string | null;
            /** Scopes */
            scopes: string[];
            /** Token */
            token: string;
            /** Token Id */
            token_id: string;
            /** Writable */
            writable: string[];
        };
        /**
         * TokenIn
         * @description `POST /v1/tokens` body.
         */
        TokenIn: {
            /** Agent Id */
            agent_id: string;
            /**
             * Scopes
             * @description extra writable scopes beyond its own
             */
            scopes?: string[];
        };
        /**
         * TokenList
         * @description `GET /v1/tokens`.
         */
        TokenList: {
            /** Items */
            items: components["schemas"]["TokenOut"][];
        };
        /**
         * TokenOut
         * @description A registered token (never its secret) with what it may write and read as fallback.
         */
        TokenOut: {
            /** Agent Id */
            agent_id: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Read Fallback */
            read_fallback: string[];
            /**
             * Revoked At
             * @default null
             */
            revoked_at?: string | null;
            /** Scopes */
            scopes: string[];
            /** Token Id */
            token_id: string;
            /** Writable */
            writable: string[];
        };
        /**
         * TokenRevoked
         * @description `DELETE /v1/tokens/{token_id}`.
         */
        TokenRevoked: {
            /** Agent Id */
            agent_id: string;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** Revoked At */
            revoked_at: string | null;
            /** Scopes */
            scopes: string[];
            /** Token Id */
            token_id: string;
        };
        /**
         * Trust
         * @description Provenance trust; quarantined memories are never recalled by default.
         * @enum {string}
         */
        Trust: "trusted" | "untrusted" | "quarantined";
        /**
         * UserCount
         * @description A user with memories in a scope.
         */
        UserCount: {
            /**
             * Memories
             * @description memories of this user in the scope, superseded ones too
             */
            memories: number;
            /** User Id */
            user_id: string;
        };
        /**
         * UserList
         * @description The users with memories in a scope, most memories first.
         */
        UserList: {
            /** Scope */
            scope: string;
            /** Users */
            users: components["schemas"]["UserCount"][];
        };
        /**
         * UsersArgs
         * @description Query of `GET /v1/users`.
         */
        UsersArgs: {
            /**
             * Limit
             * @default 100
             */
            limit?: number;
            /** Scope */
            scope: string;
        };
        /**
         * WhoAmI
         * @description `GET /v1/whoami`: the caller as the service sees its token.
         */
        WhoAmI: {
            /** Admin */
            admin: boolean;
            /**
             * Agent Id
             * @default null
             */
            agent_id?: string | null;
            /**
             * Name
             * @description `admin`, or `agent:<agent_id>`
             */
            name: string;
            /**
             * Read Fallback
             * @description team leaders' scopes it reads, never writes
             */
            read_fallback: string[];
            /**
             * Scope
             * @description an agent's own scope (`agent:<agent_id>`); null for admin
             */
            scope: string | null;
            /**
             * Writable
             * @description scopes it may write (`*`: every scope)
             */
            writable: string[];
        };
        /**
         * WriteStatus
         * @description What a write did.
         * @enum {string}
         */
        WriteStatus: "created" | "merged" | "superseded_older" | "skipped";
    };
    responses: {
        /** @description The body is not JSON, or not a JSON object */
        Error400: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description No bearer token, a malformed header, or an unknown or revoked token */
        Error401: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The token may not read or write this scope, or the route needs the admin token */
        Error403: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description Nothing with this id in a scope the token may read */
        Error404: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The path names another route that takes a different method */
        Error405: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The request contradicts stored state */
        Error409: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The body, or one text in it, exceeds the configured limit */
        Error413: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description A field is missing or invalid: `details[].loc` names each one */
        Error422: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description An unexpected error: the service log has its trace under the X-Request-Id */
        Error500: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description A store is unavailable, or the knowledge graph is disabled */
        Error503: {
            headers: {
                /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    openapi_docs: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Swagger UI page */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    openapi_docs_asset: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description swagger-ui.css, swagger-ui-bundle.js or favicon-32x32.png */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSS, JavaScript or an icon */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /healthz`: the process is up (no store is probed; see `/readyz`). */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    observability_metrics: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4": string;
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    openapi_openapi_json: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OpenAPI 3.1 */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    observability_readyz: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /readyz`: every store answered (200) or one did not (503). */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            500: components["responses"]["Error500"];
            /** @description `GET /readyz`: every store answered (200) or one did not (503). */
            503: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
        };
    };
    ui_page: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the inspector; it asks for a token */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            500: components["responses"]["Error500"];
        };
    };
    ui_asset: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description file name of the page's assets */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JavaScript or CSS */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "*/*": string;
                };
            };
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
        };
    };
    admin_export: {
        parameters: {
            query?: {
                /** @description unset: secret-looking spans (keys, passwords, card numbers) are masked; true: emails and phone numbers too; false: nothing is masked */
                redact?: boolean | null;
                scope?: string | null;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description one chunk object per line */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_forget_: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ForgetIn"];
            };
        };
        responses: {
            /** @description What was forgotten, per store. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForgetReport"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_hydrate: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HydrateIn"];
            };
        };
        responses: {
            /** @description Counts of a hydrate: entries read, written, skipped because already stored, invalid. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HydrateReport"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_import_: {
        parameters: {
            query?: {
                dedupe?: components["schemas"]["Dedupe"];
                dry_run?: boolean;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description Counts of an import; `errors` lists the first invalid lines with their numbers. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportReport"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_snapshot: {
        parameters: {
            query: {
                scope: string;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the snapshot, readable by POST /v1/admin/hydrate */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown": string;
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_index_document: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DocumentIn"];
            };
        };
        responses: {
            /** @description What indexing a document did: chunks in it, embedded anew, reused unchanged, deleted. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DocumentReport"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_delete_document: {
        parameters: {
            query: {
                path: string;
                scope: string;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `DELETE /v1/documents`: chunks removed. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DocumentDeleted"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    sessions_episodes: {
        parameters: {
            query: {
                limit?: number;
                scope: string;
                user_id?: string | null;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /v1/episodes`. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EpisodeList"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    sessions_jobs: {
        parameters: {
            query?: {
                limit?: number;
                scope?: string | null;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /v1/jobs`: newest first. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobList"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    sessions_job_status: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description job id from a 202 response */
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A job's state as `GET /v1/jobs/<id>` shows it. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobInfo"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    graph_list_entities: {
        parameters: {
            query: {
                limit?: number;
                q?: string | null;
                scope: string;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /v1/kg/entities`: a page of live entities, most mentioned first, and how many match. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EntityList"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    graph_get_entity: {
        parameters: {
            query: {
                scope: string;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description entity id from knowledge_graph_search */
                entity_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entity: aliases, facts valid now, and the full history of its facts. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EntityDetail"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    graph_knowledge_graph_search: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["KGSearchRequest"];
            };
        };
        responses: {
            /** @description `knowledge_graph_search` output. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KGSearchResponse"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_list_memories: {
        parameters: {
            query?: {
                kind?: components["schemas"]["Kind"] | null;
                limit?: number;
                offset?: string | null;
                q?: string | null;
                scope?: string | null;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /v1/memories`: a page of memories; pass `next` as `offset` for the next page. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryList"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_create_memory: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryIn"];
            };
        };
        responses: {
            /** @description `POST /v1/memories`: what the write did, and the stored memory. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryWritten"];
                };
            };
            /** @description `POST /v1/memories`: what the write did, and the stored memory. */
            201: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryWritten"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_get_memory: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description memory id (a uuid) from a write or a search */
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A stored memory as returned to clients. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkOut"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_delete_memory: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description memory id (a uuid) from a write or a search */
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The id of what was deleted. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deleted"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    updates_update_memory: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description memory id (a uuid) from a write or a search */
                ident: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryPatch"];
            };
        };
        responses: {
            /** @description A stored memory as returned to clients. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkOut"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    updates_memory_history: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description memory id (a uuid) from a write or a search */
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A memory's history: `versions` oldest first, then `current`; the writes merged into it */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryHistory"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_pin_memory: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description memory id (a uuid) from a write or a search */
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A stored memory as returned to clients. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkOut"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_unpin_memory: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description memory id (a uuid) from a write or a search */
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A stored memory as returned to clients. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkOut"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_create_memories: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BatchIn"];
            };
        };
        responses: {
            /** @description `POST /v1/memories/batch`: one result per item, in order, and counts by status. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchWritten"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    capture_capture_turn: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CaptureIn"];
            };
        };
        responses: {
            /** @description `POST /v1/memories/capture`: what was stored, and why anything was not. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CaptureOut"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_memory_search: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchRequest"];
            };
        };
        responses: {
            /** @description Hits best first, and the receipt. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResponse"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_memory_stats: {
        parameters: {
            query?: {
                scope?: string | null;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Counts of live memories. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Stats"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    capture_recall_bundle: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BundleIn"];
            };
        };
        responses: {
            /** @description `POST /v1/recall/bundle`: text to put before the model's turn, or why there is none. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BundleOut"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    sessions_complete: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description your session id, [A-Za-z0-9_.:-]{1,200} */
                session_key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionIn"];
            };
        };
        responses: {
            /** @description `POST /v1/sessions/{session_key}/complete`: the job to follow and the episode it makes. */
            202: {
                headers: {
                    /** @description the job status URL */
                    Location?: string;
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobAccepted"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_get_team: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description team id */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A team and its leader's scope. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamOut"];
                };
            };
            401: components["responses"]["Error401"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_put_team: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description team id, [A-Za-z0-9_.-]{1,128} */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamIn"];
            };
        };
        responses: {
            /** @description A team and its leader's scope. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamOut"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_delete_team: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description team id */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The id of what was deleted. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deleted"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_list_tokens: {
        parameters: {
            query?: {
                agent_id?: string | null;
                include_revoked?: boolean;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /v1/tokens`. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenList"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_create_token: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TokenIn"];
            };
        };
        responses: {
            /** @description `POST /v1/tokens`: the secret is shown only here. */
            201: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenCreated"];
                };
            };
            400: components["responses"]["Error400"];
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            413: components["responses"]["Error413"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_revoke_token: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path: {
                /** @description token_id from POST /v1/tokens */
                token_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `DELETE /v1/tokens/{token_id}`. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenRevoked"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            404: components["responses"]["Error404"];
            405: components["responses"]["Error405"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    updates_list_users: {
        parameters: {
            query: {
                limit?: number;
                scope: string;
            };
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The users with memories in a scope, most memories first. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserList"];
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            422: components["responses"]["Error422"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_whoami: {
        parameters: {
            query?: never;
            header?: {
                /** @description your request id, echoed back when it is 1 to 128 of [A-Za-z0-9._:-]; anything else is replaced by a new id */
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description `GET /v1/whoami`: the caller as the service sees its token. */
            200: {
                headers: {
                    /** @description the request id: the one sent in X-Request-Id when valid, else a new one */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhoAmI"];
                };
            };
            401: components["responses"]["Error401"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
}

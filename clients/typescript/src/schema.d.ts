// Generated from the Mnemos service's /openapi.json by `npm run generate`: do not edit.
export interface paths {
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
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
        post: operations["admin_index_document"];
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
        get: operations["memory_list_memories"];
        put?: never;
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
        get: operations["memory_get_memory"];
        put?: never;
        post?: never;
        delete: operations["memory_delete_memory"];
        options?: never;
        head?: never;
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
        get: operations["agents_get_team"];
        put: operations["agents_put_team"];
        post?: never;
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
        get: operations["agents_list_tokens"];
        put?: never;
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
        BatchIn: {
            items: {
                [key: string]: unknown;
            }[];
        };
        BatchItem: {
            /** @default null */
            error?: components["schemas"]["BatchItemError"] | null;
            /** @default null */
            id?: string | null;
            index: number;
            /** @default null */
            merged_into?: string | null;
            /** @default null */
            reason?: string | null;
            /** @enum {string} */
            status: "created" | "merged" | "superseded_older" | "skipped" | "error";
            superseded?: string[];
        };
        BatchItemError: {
            details: components["schemas"]["ErrorDetail"][];
            error: string;
            message: string;
            status: number;
        };
        BatchWritten: {
            counts: {
                [key: string]: number;
            };
            results: components["schemas"]["BatchItem"][];
        };
        BundleIn: {
            /** @default null */
            channel?: string | null;
            /** @default 800 */
            max_tokens?: number;
            message: string;
            /** @default 0.4 */
            min_score?: number;
            scope: string;
            /** @default null */
            user_id?: string | null;
        };
        BundleOut: {
            ids: string[];
            receipt: components["schemas"]["Receipt"] | null;
            skipped: string | null;
            text: string;
            tokens: number;
        };
        CapturedMemory: {
            id: string | null;
            kind: string;
            reason: string | null;
            status: components["schemas"]["WriteStatus"];
            text: string;
        };
        CaptureIn: {
            /** @default null */
            channel?: string | null;
            /** @default null */
            created_at?: string | null;
            /**
             * @default user
             * @enum {string}
             */
            role?: "user" | "assistant" | "system" | "tool";
            scope: string;
            /** @default null */
            source?: string | null;
            text: string;
            /** @default null */
            user_id?: string | null;
        };
        CaptureOut: {
            candidates: number;
            skipped: string | null;
            skipped_items: components["schemas"]["Skipped"][];
            stored: components["schemas"]["CapturedMemory"][];
        };
        Check: {
            /** @default null */
            error?: string | null;
            ms: number;
            ok: boolean;
        };
        ChunkOut: {
            access_count: number;
            accessed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @default null */
            doc_path?: string | null;
            entity_ids?: string[];
            expires_at: string | null;
            id: string;
            importance: number;
            importance_label: components["schemas"]["ImportanceLabel"];
            kind: components["schemas"]["Kind"];
            metadata: {
                [key: string]: unknown;
            };
            pinned: boolean;
            scope: string;
            source: components["schemas"]["Source"];
            stale?: components["schemas"]["Supersession"][];
            superseded_by: string | null;
            /** @default null */
            supersession?: components["schemas"]["Supersession"] | null;
            tags: string[];
            text: string;
            tier: components["schemas"]["Tier"];
            trust: components["schemas"]["Trust"];
            /** Format: date-time */
            updated_at: string;
            user_id: string | null;
        };
        /** @enum {string} */
        Dedupe: "none" | "id" | "id_text";
        Deleted: {
            deleted: string;
        };
        DocumentArgs: {
            path: string;
            scope: string;
        };
        DocumentDeleted: {
            deleted: number;
            path: string;
            scope: string;
        };
        DocumentIn: {
            markdown: string;
            path: string;
            scope: string;
            /** @default null */
            user_id?: string | null;
        };
        DocumentReport: {
            chunks: number;
            deleted: number;
            embedded: number;
            ids?: string[];
            path: string;
            reused: number;
            scope: string;
        };
        EntitiesArgs: {
            /** @default 50 */
            limit?: number;
            /** @default null */
            q?: string | null;
            scope: string;
        };
        EntityArgs: {
            scope: string;
        };
        EntityDetail: {
            current: components["schemas"]["FactOut"][];
            entity: components["schemas"]["EntityOut"];
            history: components["schemas"]["FactOut"][];
            merged_from?: string[];
        };
        EntityList: {
            items: components["schemas"]["EntityOut"][];
            total: number;
        };
        EntityOut: {
            aliases: string[];
            attributes: {
                [key: string]: string[];
            };
            id: string;
            mention_count: number;
            name: string;
            /** @default 0 */
            score?: number;
            /** @default false */
            seed?: boolean;
            summary: string;
            type: components["schemas"]["EntityType"];
        };
        /** @enum {string} */
        EntityType: "person" | "org" | "place" | "project" | "tool" | "product" | "event" | "concept" | "other";
        EpisodeList: {
            count: number;
            episodes: components["schemas"]["EpisodeOut"][];
        };
        EpisodeOut: {
            abstract: string;
            compaction_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            ended_at: string;
            /** Format: date-time */
            expires_at: string;
            id: string;
            message_count: number;
            promoted: boolean;
            promoted_at: string | null;
            scope: string;
            session_key: string;
            /** Format: date-time */
            started_at: string;
            summary: string;
            summary_source: string;
            topics: string[];
            user_id: string | null;
        };
        EpisodesQuery: {
            /** @default 20 */
            limit?: number;
            scope: string;
            /** @default null */
            user_id?: string | null;
        };
        ErrorBody: {
            details: components["schemas"]["ErrorDetail"][];
            error: string;
            message: string;
        };
        ErrorDetail: {
            /** @default null */
            loc?: (string | number)[] | null;
            msg: string;
            type: string;
        } & {
            [key: string]: unknown;
        };
        ExportArgs: {
            /** @default null */
            redact?: boolean | null;
            /** @default null */
            scope?: string | null;
        };
        FactOut: {
            confidence: number;
            current: boolean;
            expired_at: string | null;
            fact: string;
            id: string;
            object: string;
            object_id: string;
            predicate: string;
            /** Format: date-time */
            recorded_at: string;
            source_chunk: string | null;
            source_episode: string | null;
            subject: string;
            subject_id: string;
            valid_from: string | null;
            valid_to: string | null;
        };
        ForgetIn: {
            /** @default null */
            scope?: string | null;
            /** @default null */
            user_id?: string | null;
        };
        ForgetReport: {
            compaction_job: string | null;
            episodes: number;
            graph_entities: number | null;
            graph_facts: number | null;
            graph_sources: number;
            jobs: number;
            memories: number;
            scope: string | null;
            user_id: string | null;
        };
        /** @enum {string} */
        FusionMethod: "learned" | "rrf" | "weighted";
        Health: {
            embedder: string;
            graph: boolean;
            /** @enum {string} */
            mode: "embedded" | "server";
            /** @constant */
            status: "ok";
        };
        Hit: {
            /** @default null */
            abstract?: string | null;
            components: {
                [key: string]: number;
            };
            /** Format: date-time */
            created_at: string;
            id: string;
            importance: number;
            kind: components["schemas"]["Kind"];
            metadata: {
                [key: string]: unknown;
            };
            /** @default null */
            overview?: string | null;
            pinned: boolean;
            scope: string;
            score: number;
            stale?: components["schemas"]["Supersession"][];
            /** @default null */
            superseded_by?: string | null;
            /** @default null */
            supersession?: components["schemas"]["Supersession"] | null;
            text: string;
            tier: components["schemas"]["Tier"];
            user_id: string | null;
        };
        HydrateIn: {
            markdown: string;
            scope: string;
        };
        HydrateReport: {
            errors?: components["schemas"]["LineError"][];
            /** @default snapshot */
            format?: string;
            /** @default 0 */
            invalid?: number;
            /** @default 0 */
            read?: number;
            /** @default 0 */
            redacted?: number;
            redactions?: components["schemas"]["LineRedaction"][];
            /** @default 0 */
            skipped_existing?: number;
            /** @default 0 */
            written?: number;
        };
        /** @enum {string} */
        ImportanceLabel: "must_remember" | "nice_to_have" | "ignore" | "unknown";
        ImportArgs: {
            /** @default id */
            dedupe?: components["schemas"]["Dedupe"];
            /** @default false */
            dry_run?: boolean;
        };
        ImportReport: {
            /** @default id */
            dedupe?: components["schemas"]["Dedupe"];
            /** @default false */
            dry_run?: boolean;
            errors?: components["schemas"]["LineError"][];
            /** @default false */
            errors_truncated?: boolean;
            /** @default 0 */
            imported?: number;
            /** @default 0 */
            invalid?: number;
            /** @default 0 */
            read?: number;
            /** @default 0 */
            redacted?: number;
            redactions?: components["schemas"]["LineRedaction"][];
            /** @default 0 */
            skipped_duplicate?: number;
        };
        JobAccepted: {
            episode_id: string;
            job_id: string;
            status_url: string;
        };
        JobInfo: {
            /** @default 0 */
            attempts?: number;
            /** Format: date-time */
            created_at: string;
            /** @default null */
            error?: string | null;
            id: string;
            job: string;
            /** @default null */
            result?: unknown;
            state: components["schemas"]["JobStatus"];
            /** Format: date-time */
            updated_at: string;
            /** @default null */
            worker?: string | null;
        };
        JobList: {
            jobs: components["schemas"]["JobInfo"][];
        };
        JobsQuery: {
            /** @default 20 */
            limit?: number;
            /** @default null */
            scope?: string | null;
        };
        /** @enum {string} */
        JobStatus: "queued" | "running" | "done" | "failed" | "cancelled";
        KGSearchRequest: {
            /** @default null */
            as_of?: string | null;
            /** @default 2 */
            hops?: number;
            /** @default false */
            include_history?: boolean;
            /** @default 10 */
            limit?: number;
            query: string;
            scope: string;
            /** @default null */
            user_id?: string | null;
        };
        KGSearchResponse: {
            /** @default null */
            as_of?: string | null;
            /** @default null */
            asker?: string | null;
            entities?: components["schemas"]["EntityOut"][];
            facts?: components["schemas"]["FactOut"][];
            paths?: components["schemas"]["PathOut"][];
            warnings?: string[];
        };
        /** @enum {string} */
        Kind: "entity" | "preference" | "fact" | "procedure" | "project_state" | "relationship" | "remember" | "summary" | "lesson" | "failure" | "note" | "document" | "episodic" | "dream";
        LineError: {
            /** @default null */
            details?: unknown;
            error: string;
            line: number;
            message: string;
        };
        LineRedaction: {
            line: number;
            redacted: string[];
        };
        ListArgs: {
            /** @default null */
            kind?: components["schemas"]["Kind"] | null;
            /** @default 50 */
            limit?: number;
            /** @default null */
            offset?: string | null;
            /** @default null */
            q?: string | null;
            /** @default null */
            scope?: string | null;
        };
        MemoryHistory: {
            current: components["schemas"]["MemoryVersion"];
            id: string;
            merge_count: number;
            merges: components["schemas"]["MergeRecord"][];
            scope: string;
            stale?: {
                [key: string]: unknown;
            }[];
            superseded: boolean;
            superseded_by: components["schemas"]["Superseder"] | null;
            supersedes: components["schemas"]["SupersededMemory"][];
            version: number;
            versions: components["schemas"]["MemoryVersion"][];
        };
        MemoryIn: {
            /** @default null */
            created_at?: string | null;
            /** @default null */
            entity_key?: string | null;
            /** @default null */
            expires_at?: string | null;
            /** @default null */
            importance?: number | null;
            /** @default null */
            importance_label?: components["schemas"]["ImportanceLabel"] | null;
            /** @default note */
            kind?: components["schemas"]["Kind"];
            metadata?: {
                [key: string]: unknown;
            };
            /** @default false */
            pinned?: boolean;
            scope: string;
            /** @default user */
            source?: components["schemas"]["Source"];
            /** @default null */
            source_ref?: string | null;
            tags?: string[];
            text: string;
            /** @default null */
            tier?: components["schemas"]["Tier"] | null;
            /** @default trusted */
            trust?: components["schemas"]["Trust"];
            /** @default null */
            user_id?: string | null;
        };
        MemoryList: {
            items: components["schemas"]["ChunkOut"][];
            next: string | null;
        };
        MemoryPatch: {
            /** @default null */
            importance?: number | null;
            /** @default null */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /** @default null */
            pinned?: boolean | null;
            /** @default null */
            reason?: string | null;
            /** @default null */
            tags?: string[] | null;
            /** @default null */
            text?: string | null;
        };
        MemoryVersion: {
            changed?: string[];
            /** @default 0.5 */
            importance?: number;
            metadata?: {
                [key: string]: unknown;
            };
            /** @default false */
            pinned?: boolean;
            /** @default null */
            reason?: string | null;
            /** @default null */
            replaced_at?: string | null;
            /** Format: date-time */
            since: string;
            tags?: string[];
            text: string;
            version: number;
        };
        MemoryWritten: {
            id: string | null;
            /** @default null */
            memory?: components["schemas"]["ChunkOut"] | null;
            /** @default null */
            merged_into?: string | null;
            /** @default null */
            reason?: string | null;
            status: components["schemas"]["WriteStatus"];
            superseded?: string[];
        };
        MergeRecord: {
            /** Format: date-time */
            at: string;
            reason: string;
            /** @default user */
            source?: components["schemas"]["Source"];
            text: string;
            /** @default trusted */
            trust?: components["schemas"]["Trust"];
        };
        PathOut: {
            entity_ids: string[];
            fact_ids: string[];
            text: string;
        };
        Ready: {
            checks: {
                [key: string]: components["schemas"]["Check"];
            };
            /** @enum {string} */
            mode: "embedded" | "server";
            /** @enum {string} */
            status: "ready" | "unavailable";
            version: string;
        };
        Receipt: {
            /** @default 0 */
            below_floor?: number;
            /** @default null */
            candidates?: {
                [key: string]: [
                    string,
                    number
                ][];
            } | null;
            channels: {
                [key: string]: string[];
            };
            /** @default null */
            factors?: {
                [key: string]: {
                    [key: string]: number;
                };
            } | null;
            /** @default null */
            fallback?: string | null;
            fused: string[];
            latency_ms: {
                [key: string]: number;
            };
            /** @default null */
            min_score?: number | null;
            /** @default null */
            policy_tier?: string | null;
            scopes: string[];
            /** @default null */
            skip_reason?: string | null;
            speakers?: string[];
        };
        SearchFilters: {
            /** @default null */
            created_after?: string | null;
            /** @default null */
            created_before?: string | null;
            /** @default null */
            kinds?: components["schemas"]["Kind"][] | null;
            /** @default null */
            pinned?: boolean | null;
            /** @default null */
            tags?: string[] | null;
            /** @default null */
            tiers?: components["schemas"]["Tier"][] | null;
            /** @default null */
            user_id?: string | null;
        };
        /** @enum {string} */
        SearchMode: "hybrid" | "dense" | "bm25";
        SearchRequest: {
            /** @default false */
            abstracts?: boolean;
            /** @default false */
            explain?: boolean;
            filters?: components["schemas"]["SearchFilters"];
            /** @default null */
            fusion?: components["schemas"]["FusionMethod"] | null;
            /** @default null */
            graph?: boolean | null;
            /** @default 1 */
            hops?: number;
            /** @default false */
            include_superseded?: boolean;
            /** @default null */
            min_score?: number | null;
            /** @default hybrid */
            mode?: components["schemas"]["SearchMode"];
            query: string;
            scope: string;
            /** @default 10 */
            top_k?: number;
            /** @default true */
            touch?: boolean;
            /** @default null */
            user_id?: string | null;
            /** @default null */
            weights?: {
                [key: string]: number;
            } | null;
        };
        SearchResponse: {
            hits: components["schemas"]["Hit"][];
            receipt: components["schemas"]["Receipt"];
        };
        SessionIn: {
            /** @default 0 */
            compaction_count?: number;
            messages: components["schemas"]["SessionMessage"][];
            scope: string;
            /** @default null */
            summary?: string | null;
            /** @default null */
            user_id?: string | null;
        };
        SessionMessage: {
            content: string;
            /** @enum {string} */
            role: "user" | "assistant" | "system" | "tool";
            /** Format: date-time */
            ts: string;
        };
        Skipped: {
            /** @default null */
            detail?: string | null;
            reason: components["schemas"]["SkipReason"];
            text: string;
        };
        /** @enum {string} */
        SkipReason: "empty" | "system_channel" | "not_user" | "injected" | "secret" | "question" | "not_salient" | "low_confidence" | "over_limit" | "duplicate";
        SnapshotArgs: {
            scope: string;
        };
        /** @enum {string} */
        Source: "user" | "operator" | "tool" | "import" | "system" | "consolidation";
        Stats: {
            by_kind: {
                [key: string]: number;
            };
            by_scope: {
                [key: string]: number;
            };
            by_tier: {
                [key: string]: number;
            };
            pinned: number;
            superseded: number;
            total: number;
        };
        StatsArgs: {
            /** @default null */
            scope?: string | null;
        };
        SupersededMemory: {
            at: string | null;
            id: string;
            text: string;
        };
        Superseder: {
            at: string | null;
            details?: {
                [key: string]: unknown;
            };
            id: string | null;
            reason: string | null;
            text: string | null;
        };
        Supersession: {
            by: string;
            /** @default 0 */
            clause?: number;
            new_value: string;
            old_value: string;
            rule: string;
            slot: string;
            subject: string;
        };
        TeamIn: {
            leader: string;
            members: string[];
        };
        TeamOut: {
            leader: string;
            leader_scope: string;
            members: string[];
            team_id: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @enum {string} */
        Tier: "core" | "working" | "peripheral";
        TokenArgs: {
            /** @default null */
            agent_id?: string | null;
            /** @default false */
            include_revoked?: boolean;
        };
        TokenCreated: {
            agent_id: string;
            /** Format: date-time */
            created_at: string;
            read_fallback: string[];
            /** @default null */
            revoked_at?: string | null;
            scopes: string[];
            token: string;
            token_id: string;
            writable: string[];
        };
        TokenIn: {
            agent_id: string;
            scopes?: string[];
        };
        TokenList: {
            items: components["schemas"]["TokenOut"][];
        };
        TokenOut: {
            agent_id: string;
            /** Format: date-time */
            created_at: string;
            read_fallback: string[];
            /** @default null */
            revoked_at?: string | null;
            scopes: string[];
            token_id: string;
            writable: string[];
        };
        TokenRevoked: {
            agent_id: string;
            /** Format: date-time */
            created_at: string;
            revoked_at: string | null;
            scopes: string[];
            token_id: string;
        };
        /** @enum {string} */
        Trust: "trusted" | "untrusted" | "quarantined";
        UserCount: {
            memories: number;
            user_id: string;
        };
        UserList: {
            scope: string;
            users: components["schemas"]["UserCount"][];
        };
        UsersArgs: {
            /** @default 100 */
            limit?: number;
            scope: string;
        };
        WhoAmI: {
            admin: boolean;
            /** @default null */
            agent_id?: string | null;
            name: string;
            read_fallback: string[];
            scope: string | null;
            writable: string[];
        };
        /** @enum {string} */
        WriteStatus: "created" | "merged" | "superseded_older" | "skipped";
    };
    responses: {
        Error400: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error401: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error403: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error404: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error405: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error409: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error413: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error422: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error429: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error500: {
            headers: {
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        Error503: {
            headers: {
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
                "X-Request-Id"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4": string;
                };
            };
            401: components["responses"]["Error401"];
            403: components["responses"]["Error403"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    openapi_openapi_json: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Ready"];
                };
            };
            500: components["responses"]["Error500"];
            503: {
                headers: {
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
                "X-Request-Id"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
                redact?: boolean | null;
                scope?: string | null;
            };
            header?: {
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_forget_: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_hydrate: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    admin_index_document: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    sessions_job_status: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                job_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path: {
                entity_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    graph_knowledge_graph_search: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_create_memory: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryWritten"];
                };
            };
            201: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_get_memory: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_delete_memory: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    updates_update_memory: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    updates_memory_history: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_pin_memory: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_unpin_memory: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                ident: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_create_memories: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    capture_capture_turn: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    memory_memory_search: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    capture_recall_bundle: {
        parameters: {
            query?: never;
            header?: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    sessions_complete: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
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
            202: {
                headers: {
                    Location?: string;
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_get_team: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_put_team: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
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
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_delete_team: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_create_token: {
        parameters: {
            query?: never;
            header?: {
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
            201: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_revoke_token: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path: {
                token_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
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
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
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
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
    agents_whoami: {
        parameters: {
            query?: never;
            header?: {
                "X-Request-Id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhoAmI"];
                };
            };
            401: components["responses"]["Error401"];
            429: components["responses"]["Error429"];
            500: components["responses"]["Error500"];
            503: components["responses"]["Error503"];
        };
    };
}
